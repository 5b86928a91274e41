"""A client of the session host: newline-delimited JSON-RPC 2.0 on its Unix socket
(``docs/host-protocol.md``). The binary starts the host; this module only talks to it."""

from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Optional

from .errors import ShottyError

# The host answers every request but `wait`, `stop` and `golden` within 5 s (docs/host-protocol.md);
# a reply that takes longer means the host is stuck.
REPLY_TIMEOUT = 10.0
# Requests that change no session, as the binary lists them (`protocol::CHANGES_NO_SESSION`;
# a test in src/session/protocol.rs checks the two lists agree).
CHANGES_NO_SESSION = frozenset(
    {"ping", "list", "read", "snapshot", "history", "export", "commands", "find", "output"}
)
# How long a question is asked again of hosts that close the connection unanswered, and how
# often.
ASK_AGAIN_FOR = 5.0
ASK_AGAIN_PAUSE = 0.02
# Replies are one line each; a `read` of a 500×500 screen with styles stays far below this.
MAX_REPLY = 64 << 20


def runtime_dir() -> Path:
    """The host's runtime directory, as the binary finds it."""
    explicit = os.environ.get("SHOTTY_RUNTIME_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / "shotty"
    return Path(f"/tmp/shotty-{os.getuid()}")


class Host:
    """The per-user session host, reached through its socket.

    Each call is a connection of its own (a `wait` ends its connection anyway), so a `Host` may
    be shared by threads. A host that is not running is started by running the binary's
    ``session list``, which starts one and returns once it listens.
    """

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self._ids = itertools.count(1)

    @property
    def socket_path(self) -> Path:
        return runtime_dir() / "host.sock"

    def call(self, method: str, params: dict[str, Any], timeout: float = REPLY_TIMEOUT) -> Any:
        """Sends one request and returns its ``result``.

        Raises:
            ShottyError: the host answered with an error (its stable ``code``), or could not
                be reached.
        """
        request = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        line = json.dumps(request, ensure_ascii=False).encode() + b"\n"
        # A host that ended in order (its idle exit, a newer host) between our connect and
        # our request closes the connection unread and removes its socket: sent again, once,
        # to the new host, as the CLI does. A host that died mid-request (its socket left
        # behind) is asked again only a question, until a host that lives answers it; any
        # other request may have been half done.
        question = method in CHANGES_NO_SESSION
        inode, reply = self._send(line, timeout)
        if reply is None and (question or self._socket_inode() != inode):
            deadline = time.monotonic() + ASK_AGAIN_FOR
            while True:
                inode, reply = self._send(line, timeout)
                if reply is not None or not question or time.monotonic() >= deadline:
                    break
                time.sleep(ASK_AGAIN_PAUSE)
        if reply is None:
            raise ShottyError(
                "host_unavailable",
                f"the session host closed the connection without answering {method}",
            )
        error = reply.get("error")
        if error is not None:
            data = error.get("data") or {}
            raise ShottyError(data.get("code", "session_error"), error.get("message", ""))
        return reply.get("result")

    def _send(self, line: bytes, timeout: float) -> tuple[Optional[int], Optional[dict[str, Any]]]:
        """The socket's inode when connected, and the reply (``None``: closed without one)."""
        conn, inode = self._connect()
        try:
            return inode, self._exchange(conn, line, timeout)
        finally:
            conn.close()

    def _socket_inode(self) -> Optional[int]:
        try:
            return self.socket_path.stat().st_ino
        except OSError:
            return None

    def _connect(self) -> tuple[socket.socket, Optional[int]]:
        for started in (False, True):
            inode = self._socket_inode()
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                conn.connect(str(self.socket_path))
                return conn, inode
            except (FileNotFoundError, ConnectionRefusedError) as e:
                conn.close()
                if started:
                    raise ShottyError(
                        "host_unavailable", f"cannot reach the session host at {self.socket_path}: {e}"
                    ) from e
                self._start()
        raise AssertionError("unreachable")

    def _start(self) -> None:
        done = subprocess.run(
            [self.binary, "session", "list"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=30,
        )
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip()
            raise ShottyError("host_unavailable", f"cannot start the session host: {message}")

    @staticmethod
    def _exchange(conn: socket.socket, line: bytes, timeout: float) -> Optional[dict[str, Any]]:
        """The reply to ``line``, or ``None`` when the connection closed without one."""
        conn.settimeout(timeout)
        try:
            conn.sendall(line)
            received = bytearray()
            while not received.endswith(b"\n"):
                chunk = conn.recv(1 << 16)
                if not chunk:
                    return None
                received += chunk
                if len(received) > MAX_REPLY:
                    raise ShottyError("session_error", "the host's reply is over 64 MiB")
        except socket.timeout as e:
            raise ShottyError("host_unavailable", f"no reply from the session host in {timeout:g} s") from e
        except (BrokenPipeError, ConnectionResetError):
            return None
        try:
            reply = json.loads(received)
        except ValueError as e:
            raise ShottyError("session_error", f"the host's reply is not JSON: {e}") from e
        if not isinstance(reply, dict):
            raise ShottyError("session_error", "the host's reply is not a JSON object")
        return reply


_shared: Optional[Host] = None


def shared_host() -> Host:
    """The host client this process shares, made on first use."""
    global _shared
    if _shared is None:
        from ._binary import find_binary

        _shared = Host(find_binary())
    return _shared
