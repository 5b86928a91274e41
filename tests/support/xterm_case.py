"""Runs inside xterm for the differential test (tests/term/xterm.rs): writes a case's bytes,
asks for the cursor position, has xterm print its screen with attributes (media copy,
`CSI i`) and waits until xterm has handled that before exiting.

    python3 xterm_case.py CASE_FILE CURSOR_FILE
"""
import os
import re
import sys
import tty

CPR = re.compile(rb"\x1b\[(\d+);(\d+)R")


def cursor_report(fd):
    """Asks for the cursor position and reads input up to the report."""
    os.write(1, b"\x1b[6n")
    seen = b""
    while True:
        seen += os.read(fd, 64)
        found = list(CPR.finditer(seen))
        if found:
            return found[-1]


def main():
    case, cursor_file = sys.argv[1], sys.argv[2]
    fd = sys.stdin.fileno()
    tty.setraw(fd)
    with open(case, "rb") as f:
        os.write(1, f.read())
    row, col = cursor_report(fd).groups()
    with open(cursor_file, "w") as f:
        f.write(f"{int(row)} {int(col)}\n")
    os.write(1, b"\x1b[i")
    # Answered after the print: xterm has written the screen to the printer by then.
    cursor_report(fd)


main()
