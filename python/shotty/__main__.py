"""``python -m shotty ARGS…`` runs the bundled binary."""

import os
import sys

from ._binary import find_binary


def main() -> None:
    binary = find_binary()
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
