# Turns on SGR mouse reporting and bracketed paste, then echoes every read from the terminal
# as a Python bytes literal: what a click or a paste sends, as the program receives it.
import os
import sys
import tty

sys.stdout.write("\x1b[?1000h\x1b[?1006h\x1b[?2004h" + "click here\r\n")
sys.stdout.flush()
tty.setraw(0)
while True:
    data = os.read(0, 256)
    sys.stdout.write(repr(data) + "\r\n")
    sys.stdout.flush()
