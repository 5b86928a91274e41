"""The Python suite: the installed `shotty` package (the wheel, or python/ with SHOTTY_BIN in
development) driving real programs. Each run gets a session host of its own, in a private
runtime directory, with its own HOME and state."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HERE = Path(__file__).parent
APPS = HERE / "apps"


def pytest_configure(config: pytest.Config) -> None:
    # Set once, by the process that starts pytest-xdist's workers, which inherit it: one host
    # for the whole run.
    if os.environ.get("SHOTTY_SUITE_ROOT"):
        return
    root = Path(tempfile.mkdtemp(prefix="shotty-python-suite-"))
    for name in ("run", "home", "state"):
        (root / name).mkdir(mode=0o700)
    os.environ.update(
        SHOTTY_SUITE_ROOT=str(root),
        SHOTTY_RUNTIME_DIR=str(root / "run"),
        SHOTTY_STATE_DIR=str(root / "state"),
        SHOTTY_HOST_IDLE_MS="3000",
        HOME=str(root / "home"),
    )
    config._shotty_suite_root = root  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    root = getattr(config, "_shotty_suite_root", None)
    if root is None:
        return
    import shotty

    subprocess.run([shotty.binary(), "session", "stop", "--all", "--yes"], capture_output=True)
    shutil.rmtree(root, ignore_errors=True)


def require(program: str) -> str:
    """The path of `program`; a test that needs an absent one is skipped, or fails in CI."""
    found = shutil.which(program)
    if found is None:
        message = f"{program} is not installed (tests/dependencies.txt)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


@pytest.fixture(autouse=True)
def inner_runs_are_not_xdist_workers(monkeypatch):
    """pytester's inner pytest runs inherit this process's environment: under pytest-xdist
    they would take themselves for its workers."""
    for key in list(os.environ):
        if key.startswith("PYTEST_XDIST_"):
            monkeypatch.delenv(key)
