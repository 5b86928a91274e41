"""What shotty raises. Every error carries the host's stable ``code`` and, where there was a
screen, the screen as text in ``screen`` and at the end of the message."""

from __future__ import annotations

from typing import Optional


class ShottyError(Exception):
    """A failure reported by shotty.

    Attributes:
        code: the stable error code (``docs/host-protocol.md``): ``wait_timeout``,
            ``session_exited``, ``unsupported_key``, ``invalid_request``, ``host_unavailable``…
        screen: the screen as text when the failure concerns a program, else ``None``.
    """

    def __init__(self, code: str, message: str, screen: Optional[str] = None) -> None:
        self.code = code
        self.message = message
        self.screen = screen
        super().__init__(message if screen is None else f"{message}\n{screen}")


class WaitTimeout(ShottyError):
    """A wait ran out of time before its condition held."""


class ProgramExited(ShottyError):
    """The program ended while something still needed it (a wait, input)."""


class ScreenMismatch(ShottyError, AssertionError):
    """The screen differs from its golden file (or the golden is missing where it must exist).

    Attributes:
        actual: ``NAME.actual.svg`` beside the golden (the screen), when written.
        diff: ``NAME.diff.svg`` beside the golden (the differing cells marked), when written.
    """

    def __init__(self, message: str, actual: Optional[str] = None, diff: Optional[str] = None):
        super().__init__("screen_mismatch", message)
        self.actual = actual
        self.diff = diff
