"""Echoes every read from its terminal as hex, one `[…]` line per read.

With the argument `app` it first switches the terminal to application cursor keys (DECCKM,
`CSI ? 1 h`) and the application keypad (DECKPAM, `ESC =`), so a test sees which bytes the
front end sent for a key in that mode. Prints `ready` once set up.
"""
import os
import sys
import tty

tty.setraw(0)
if "app" in sys.argv[1:]:
    os.write(1, b"\x1b[?1h\x1b=")
os.write(1, b"ready\r\n")
while True:
    data = os.read(0, 64)
    if not data:
        break
    os.write(1, ("[" + data.hex() + "]\r\n").encode())
