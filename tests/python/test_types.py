"""The installed package's type hints hold: mypy --strict over it, as a typed library's
users run mypy over code that calls it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import shotty


def test_the_package_passes_mypy_strict():
    package = Path(shotty.__file__).parent
    assert (package / "py.typed").exists()
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(package)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
