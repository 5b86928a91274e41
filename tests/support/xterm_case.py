"""Runs inside xterm for the differential test (tests/term/xterm.rs): writes a case's bytes,
collects what xterm answers to the case's own queries, asks for the cursor position, has
xterm print its saved lines and screen with attributes (media copy of everything,
`CSI ? 11 i`) and waits until xterm has handled that before exiting.

    python3 xterm_case.py CASE_FILE REPLIES_FILE CURSOR_FILE
"""
import os
import re
import sys
import traceback
import tty

# DECRQM of a mode no terminal has: its answer marks the end of the case's replies.
MARKER_QUERY = b"\x1b[?7777$p"
MARKER_REPLY = b"\x1b[?7777;0$y"
CPR = re.compile(rb"\x1b\[(\d+);(\d+)R")


def read_until(fd, done):
    seen = b""
    while True:
        seen += os.read(fd, 256)
        found = done(seen)
        if found is not None:
            return seen, found


def main():
    case, replies_file, cursor_file = sys.argv[1:4]
    fd = sys.stdin.fileno()
    tty.setraw(fd)
    with open(case, "rb") as f:
        os.write(1, f.read())
    os.write(1, MARKER_QUERY)
    seen, end = read_until(fd, lambda s: s.find(MARKER_REPLY) if MARKER_REPLY in s else None)
    with open(replies_file, "wb") as f:
        f.write(seen[:end])
    os.write(1, b"\x1b[6n")
    _, cpr = read_until(fd, lambda s: CPR.search(s))
    with open(cursor_file, "w") as f:
        f.write(f"{int(cpr.group(1))} {int(cpr.group(2))}\n")
    os.write(1, b"\x1b[?11i")
    # Answered after the print: xterm has written the screen to the printer by then.
    os.write(1, MARKER_QUERY)
    read_until(fd, lambda s: 0 if MARKER_REPLY in s else None)


try:
    main()
except BaseException:
    # Its stderr is xterm's screen, gone with the window: the test reads this file instead.
    with open(sys.argv[1] + ".err", "w") as f:
        traceback.print_exc(file=f)
    raise
