"""A raw-mode program for input tests: each read is shown as `N HEX:<hex>` on a cleared screen
(N counts reads, so the same bytes twice are told apart).

Reads that start with `!` set modes the way applications do:
- `!m1000,1006` turns off every mouse mode, then turns on 1000 and 1006, and shows
  `N MODES 1000,1006` (`!m` just turns them all off);
- `!k3` pushes kitty keyboard flags 3 (`CSI > 3 u`) and queries them (`CSI ? u`), showing
  `N KITTY 3`; the terminal's answer arrives as the next read.
"""
import os
import tty

MOUSE_MODES = (9, 1000, 1002, 1003, 1005, 1006, 1015)

tty.setraw(0)
os.write(1, b"\x1b[H\x1b[2Jready\r\n")
count = 0
while True:
    data = os.read(0, 4096)
    if not data:
        break
    count += 1
    if data.startswith(b"!m"):
        wanted = [m for m in data[2:].decode().split(",") if m]
        off = "".join(f"\x1b[?{m}l" for m in MOUSE_MODES)
        on = "".join(f"\x1b[?{m}h" for m in wanted)
        os.write(1, f"{off}{on}\x1b[H\x1b[2J{count} MODES {','.join(wanted)}\r\n".encode())
    elif data.startswith(b"!k"):
        flags = int(data[2:].decode())
        os.write(1, f"\x1b[>{flags}u\x1b[?u\x1b[H\x1b[2J{count} KITTY {flags}\r\n".encode())
    else:
        os.write(1, f"\x1b[H\x1b[2J{count} HEX:{data.hex()}\r\n".encode())
