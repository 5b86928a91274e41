"""The installed package's type hints hold: mypy --strict over it, as a typed library's
users run mypy over code that calls it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import shotty


def test_the_package_passes_mypy_strict():
    package = Path(shotty.__file__).parent
    assert (package / "py.typed").exists()
    # By name, as a user's mypy finds it: installed, through its py.typed (PEP 561); python/
    # in development, through MYPYPATH.
    env = dict(os.environ)
    if package.parent.name != "site-packages":
        env["MYPYPATH"] = str(package.parent)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "shotty"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_chained_calls_keep_their_type(tmp_path):
    # A chain ends in the class it started from: the plugin's tui's assert_screen after a wait.
    user = tmp_path / "test_user.py"
    user.write_text(
        "from shotty.pytest_plugin import TuiFactory\n"
        "\n"
        "\n"
        "def test_chain(tui: TuiFactory) -> None:\n"
        '    tui(["sh"]).wait_for_text("$").keys("Enter").assert_screen()\n'
    )
    package = Path(shotty.__file__).parent
    env = dict(os.environ)
    if package.parent.name != "site-packages":
        env["MYPYPATH"] = str(package.parent)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(user)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
