"""shotty: drive terminal programs in real pseudo-terminals, read and pin their screens.

>>> import shotty
>>> with shotty.spawn(["python3", "-q"], size=(60, 10)) as py:
...     py.wait_for_text(">>> ").type("6 * 7").keys("Enter")
...     py.wait_for_text("42")
...     py.screenshot("repl.svg", window="macos")

Everything runs in shotty's session host (started by the ``shotty`` binary this package
carries): one terminal emulator, one PTY layer and one wait engine for the command line, the
MCP server and this API. `render` draws raw terminal output without running anything.
"""

from __future__ import annotations

from typing import Any, Sequence

from ._binary import find_binary
from ._tui import DEFAULT_TIMEOUT, Command, Tui, appearance_flags, run_binary
from .errors import ProgramExited, ScreenMismatch, ShottyError, WaitTimeout

__all__ = [
    "Command",
    "DEFAULT_TIMEOUT",
    "ProgramExited",
    "ScreenMismatch",
    "ShottyError",
    "Tui",
    "WaitTimeout",
    "binary",
    "render",
    "spawn",
]


def binary() -> str:
    """The path of the ``shotty`` binary this package runs (see ``SHOTTY_BIN``)."""
    return find_binary()


spawn = Tui.spawn
"""Starts a program in a terminal: ``shotty.spawn(argv, size=(cols, rows), env=…, cwd=…,
shell_integration=…)`` → `Tui` (see `Tui.spawn`)."""


def render(
    data: bytes,
    width: int = 100,
    height: int = 24,
    format: str = "svg",
    **appearance: Any,
) -> bytes:
    """Renders raw terminal output (or an asciicast recording) as ``svg``, ``png``, ``txt``,
    ``json``, ``gif``, ``apng`` or ``mp4``, with the options of ``shotty render`` as keyword
    arguments (``theme="dracula"``, ``window="macos"``, ``video=True``…). A bare LF starts a
    new line, as a terminal driver makes it.

    >>> svg = shotty.render(b"\\x1b[1;32mok\\x1b[0m done\\n", width=20, height=2)
    """
    args = ["render", "--width", str(width), "--height", str(height), "--format", format]
    return run_binary(find_binary(), args + appearance_flags(appearance), stdin=data)
