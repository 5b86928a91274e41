"""`Tui`: one program in a terminal of the session host."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from ._host import Host, shared_host
from .errors import ProgramExited, ScreenMismatch, ShottyError, WaitTimeout

T = TypeVar("T", bound="Tui")
PathLike = Union[str, "os.PathLike[str]"]

DEFAULT_TIMEOUT = 5.0
"""Seconds a wait gives its condition unless told otherwise."""

# Seconds a reply may take beyond the time the request itself asks the host to spend.
REPLY_MARGIN = 10.0
# `stop` ends process trees with a 3 s grace and answers within 60 s.
STOP_TIMEOUT = 60.0


@dataclass(frozen=True)
class Command:
    """A command the shell ran (shell integration): what ``Tui.wait_for_command`` returns."""

    text: str
    """The command line as typed."""
    exit_code: Optional[int]
    """Its exit status, when the shell reported one."""
    output: str
    """What it printed (plain text)."""
    output_truncated: bool
    """Whether ``output`` was cut short."""
    duration: float
    """Seconds it ran."""


def appearance_flags(appearance: Mapping[str, Any]) -> list[str]:
    """``theme="nord", window="macos", no_cursor=True`` → ``--theme nord --window macos
    --no-cursor``: keyword arguments become the binary's own options (``shotty render
    --help``), which check them; ``False`` and ``None`` leave an option out, a list repeats it.
    """
    flags: list[str] = []
    for key, value in appearance.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            flags.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                flags += [flag, str(item)]
        else:
            flags += [flag, str(value)]
    return flags


def run_binary(binary: str, args: Sequence[str], stdin: Optional[bytes] = None) -> bytes:
    """Runs the binary; its stdout, or `ShottyError` with its message when it fails."""
    done = subprocess.run(
        [binary, *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise ShottyError("invalid_request", message or f"shotty {args[0]} failed ({done.returncode})")
    return done.stdout


def client_environment() -> list[list[str]]:
    """This process's environment as ``start``'s ``baseEnv``: the program sees what the
    caller sees, whichever process started the host. Entries that are not valid UTF-8 cannot
    travel in JSON and are left out."""
    pairs = []
    for key, value in os.environ.items():
        try:
            key.encode()
            value.encode()
        except UnicodeEncodeError:
            continue
        pairs.append([key, value])
    return pairs


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


class Tui:
    """A program running in a terminal of the session host (``shotty.spawn`` makes one).

    A context manager: leaving the ``with`` block ends the program and its whole process
    tree. Methods that send return the ``Tui``, so they chain: ``tui.type("ls").keys("Enter")``.
    """

    def __init__(self, host: Host, started: Mapping[str, Any], argv: Sequence[str]) -> None:
        self._host = host
        self.session_id: str = started["sessionId"]
        """The host's id for the session (``shotty session read ID`` reads it too)."""
        self.pid: Optional[int] = started.get("processId")
        """The program's process id."""
        self.argv = list(argv)
        self.size: tuple[int, int] = (started["width"], started["height"])
        """Columns and rows."""
        self._closed = False

    @classmethod
    def spawn(
        cls: "type[T]",
        argv: Sequence[str],
        *,
        size: Tuple[int, int] = (80, 24),
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[PathLike] = None,
        shell_integration: bool = False,
        name: Optional[str] = None,
        group: Optional[str] = None,
        timeout: Optional[float] = None,
        wait_ready: Optional[float] = None,
    ) -> T:
        """Starts ``argv`` (run directly, no shell unless it is one) in a terminal of
        ``size`` = (columns, rows).

        Args:
            env: variables set for the program on top of this process's environment (the
                program sees what this process sees, plus ``TERM=xterm-256color``,
                ``COLORTERM=truecolor``, ``FORCE_COLOR=3``, without ``CI``).
            cwd: its working directory (default: this process's).
            shell_integration: make bash, zsh or fish report each command and its exit code
                (`Tui.wait_for_command`).
            name, group: how ``shotty session list`` shows it.
            timeout: end the program after this many seconds.
            wait_ready: return once the program waits for input (its first prompt, with shell
                integration), waiting at most this many seconds.

        Raises:
            ShottyError: the program cannot be started (``session_not_started`` for one that
                does not exist).
            TypeError: ``argv`` is a string rather than a sequence of words.
        """
        if isinstance(argv, (str, bytes)):
            # A string would be run as one character a word.
            raise TypeError(f"argv is a sequence of words, not a string: [{argv!r}] or shlex.split({argv!r})")
        argv = [os.fspath(a) for a in argv]
        params: dict[str, Any] = {
            "command": argv,
            "width": size[0],
            "height": size[1],
            "cwd": os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd()),
            "baseEnv": client_environment(),
            "env": [[k, v] for k, v in (env or {}).items()],
            "shellIntegration": shell_integration,
            # The program ends with this process, however it ends (Ctrl+C, a crash, SIGKILL).
            "ownerPid": os.getpid(),
        }
        if name is not None:
            params["name"] = name
        if group is not None:
            params["group"] = group
        if timeout is not None:
            params["timeoutMs"] = round(timeout * 1000)
        reply_timeout = 10.0
        if wait_ready is not None:
            params["waitReadyMs"] = round(wait_ready * 1000)
            reply_timeout += wait_ready
        client = shared_host()
        started = client.call("start", params, timeout=reply_timeout)
        return cls(client, started, argv)

    def __repr__(self) -> str:
        return f"<shotty.Tui {self.session_id} {self.argv!r}>"

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- input ------------------------------------------------------------------------

    def send(self: T, *steps: Mapping[str, Any]) -> T:
        """Sends steps of the host protocol in one operation, in order:
        ``{"text": …}``, ``{"paste": …}``, ``{"keys": …}``, ``{"rawHex": …}``,
        ``{"mouse": {…}}``, ``{"delay": ms}`` (``docs/host-protocol.md``)."""
        self._call("send", {"steps": list(steps)})
        return self

    def keys(self: T, *names: str) -> T:
        """Presses keys by name, in order: ``Enter``, ``Tab``, ``Escape``, ``Up``, ``F5``,
        ``Ctrl+C``, ``Alt+x``, ``Shift+Tab``… (``shotty session send --help``)."""
        return self.send(*({"keys": name} for name in names))

    def type(self: T, text: str) -> T:
        """Types text as keystrokes."""
        return self.send({"text": text})

    def paste(self: T, text: str) -> T:
        """Pastes text (bracketed when the program asked for bracketed paste)."""
        return self.send({"paste": text})

    def click(self: T, row: int, col: int, *, button: str = "left") -> T:
        """Clicks the cell at ``row``, ``col`` (0-based), encoded for the program's mouse mode.
        Fails when the program has not turned mouse tracking on."""
        return self.send({"mouse": {"action": "click", "row": row, "col": col, "button": button}})

    def click_text(self: T, text: str, *, nth: int = 1, button: str = "left") -> T:
        """Clicks the first cell of the ``nth`` (from 1) occurrence of ``text`` on the screen."""
        return self.send({"mouse": {"action": "click", "text": text, "nth": nth, "button": button}})

    def resize(self: T, cols: int, rows: int) -> T:
        """Resizes the terminal; the program gets SIGWINCH."""
        reply = self._call("resize", {"width": cols, "height": rows})
        self.size = (reply["width"], reply["height"])
        return self

    # -- waiting ----------------------------------------------------------------------

    def wait_for_text(self: T, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> T:
        """Waits until ``text`` is on the screen (blanks match spaces, a line break the end of
        a row). Raises `WaitTimeout` or `ProgramExited`, whose message shows the screen."""
        self._wait({"text": text}, timeout, f"text {text!r}")
        return self

    def wait_for_regex(self: T, pattern: str, *, timeout: float = DEFAULT_TIMEOUT) -> T:
        """Waits until the regular expression matches the screen (one line per row, ``^``
        and ``$`` anchor lines; Rust's regex syntax)."""
        self._wait({"regex": pattern}, timeout, f"a match of /{pattern}/")
        return self

    def wait_until_gone(self: T, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> T:
        """Waits until ``text`` is not on the screen once the program has reacted to the input
        sent before, whether or not it was ever seen (so a message that came and went in a
        moment does not make the wait time out)."""
        self._wait({"text": text, "until": "gone"}, timeout, f"{text!r} to go")
        return self

    def wait_for_idle(self: T, ms: int = 200, *, timeout: float = DEFAULT_TIMEOUT) -> T:
        """Waits until the screen has not changed for ``ms`` milliseconds."""
        self._wait({"idleMs": ms}, timeout, f"the screen to be idle for {ms} ms")
        return self

    def wait_for_command(self, *, timeout: float = DEFAULT_TIMEOUT) -> Command:
        """Waits for the shell to finish the command typed last and returns it (needs
        ``shell_integration=True`` at spawn)."""
        reply = self._wait({"command": True}, timeout, "a command to finish")
        done = reply.get("command") or {}
        return Command(
            text=done.get("text", ""),
            exit_code=done.get("exitCode"),
            output=done.get("output", ""),
            output_truncated=bool(done.get("outputTruncated")),
            duration=done.get("durationMs", 0) / 1000,
        )

    def wait_for_exit(self, *, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Waits for the program to end and returns its exit code, or ``-N`` when signal ``N``
        ended it (as `subprocess` does)."""
        reply = self._wait({"exit": True}, timeout, "the program to exit")
        return exit_status(reply)

    def _wait(self, condition: dict[str, Any], timeout: float, what: str) -> dict[str, Any]:
        params = {**condition, "timeoutMs": _ms(timeout)}
        reply: dict[str, Any] = self._call("wait", params, timeout=timeout + REPLY_MARGIN)
        if reply.get("matched"):
            return reply
        screen = describe_screen(reply.get("screen"))
        if reply.get("result") == "session-ended":
            raise ProgramExited(
                "session_exited",
                f"waiting for {what}: the program ended ({describe_end(reply)})",
                screen,
            )
        raise WaitTimeout("wait_timeout", f"timed out after {timeout:g} s waiting for {what}", screen)

    # -- reading ----------------------------------------------------------------------

    def text(self) -> str:
        """The screen as text: one line per row, each without its trailing blanks."""
        return str(self._call("read", {})["screen"]["text"])

    def snapshot(self) -> dict[str, Any]:
        """The screen as a snapshot (schema v1: cells, styles, cursor, title, modes)."""
        snapshot: dict[str, Any] = self._call("snapshot", {})["snapshot"]
        return snapshot

    def screenshot(self, path: PathLike, **appearance: Any) -> Path:
        """Renders the screen to ``path``: ``.svg``, ``.png``, ``.txt`` or ``.json``, drawn
        with the options of ``shotty session capture`` as keyword arguments (``theme="nord"``,
        ``window="macos"``, ``fontsize=16``, ``scale=2``…). Returns the path."""
        target = Path(path)
        args = ["session", "capture", self.session_id, "-o", str(target.absolute())]
        run_binary(self._host.binary, args + appearance_flags(appearance))
        return target

    def assert_screen(
        self,
        golden: PathLike,
        *,
        update: bool = False,
        missing_fails: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> str:
        """Compares the screen with a golden ``.svg`` (or ``.json``) cell by cell — text,
        width, style, link, cursor, title, size — giving the program up to ``timeout`` to
        come to match. ``update`` rewrites the golden; a missing golden is written, unless
        ``missing_fails``. Returns ``"matched"``, ``"updated"`` or ``"new"``.

        Raises:
            ScreenMismatch: an `AssertionError` carrying the cell report; the screen is left in
                ``NAME.actual.svg`` and the differing cells marked in ``NAME.diff.svg``.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, then the cell report
        path = Path(golden).absolute()
        reply = self._call(
            "golden",
            {
                "path": str(path),
                "update": update,
                "missingFails": missing_fails,
                "timeoutMs": _ms(timeout),
            },
            timeout=timeout + REPLY_MARGIN,
        )
        if reply["verdict"] == "failed":
            raise ScreenMismatch(reply.get("message", ""), reply.get("actual"), reply.get("diff"))
        return str(reply["verdict"])

    # -- ending -----------------------------------------------------------------------

    def close(self) -> None:
        """Ends the program and every process it started, and forgets the session (nothing
        of it stays on disk). Calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            self._host.call("stop", {"sessionIds": [self.session_id]}, timeout=STOP_TIMEOUT)
        except ShottyError as e:
            if e.code not in ("session_not_found", "session_expired"):
                raise

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

    def _call(self, method: str, params: dict[str, Any], timeout: Optional[float] = None) -> Any:
        if self._closed:
            raise ShottyError("invalid_operation", f"{self!r} was closed")
        params = {"sessionId": self.session_id, **params}
        try:
            if timeout is None:
                return self._host.call(method, params)
            return self._host.call(method, params, timeout=timeout)
        except ShottyError as e:
            if e.screen is not None or method in ("read", "snapshot"):
                raise
            # The failure is about this program: show what it shows.
            kind = ProgramExited if e.code == "session_exited" else type(e)
            raise kind(e.code, e.message, self._screen_or_none()) from None

    def _screen_or_none(self) -> Optional[str]:
        try:
            return describe_screen(self._host.call("read", {"sessionId": self.session_id})["screen"])
        except (ShottyError, KeyError, TypeError):
            return None


def exit_status(reply: Mapping[str, Any]) -> int:
    """A program's end as `subprocess` reports it: the exit code, or ``-N`` for signal N."""
    if reply.get("exitCode") is not None:
        return int(reply["exitCode"])
    name = reply.get("signal")
    if isinstance(name, str) and name in signal.Signals.__members__:
        return -int(signal.Signals[name])
    return -1


def describe_end(reply: Mapping[str, Any]) -> str:
    if reply.get("exitCode") is not None:
        return f"exit code {reply['exitCode']}"
    if reply.get("signal"):
        return f"killed by {reply['signal']}"
    return reply.get("stopReason") or "stopped"


def describe_screen(screen: Optional[Mapping[str, Any]]) -> Optional[str]:
    """The screen for a message: its size, then each row behind a bar, so blanks show."""
    if not screen:
        return None
    rows = screen.get("text", "").split("\n")
    while len(rows) > 1 and not rows[-1].strip():
        rows.pop()
    body = "\n".join(f"  |{row}" for row in rows)
    return f"the screen ({screen.get('width')}x{screen.get('height')}):\n{body}"
