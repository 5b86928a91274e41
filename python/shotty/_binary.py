"""Where the ``shotty`` binary is: the one this package was installed with."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

BINARY_VAR = "SHOTTY_BIN"
"""An environment variable naming the binary to use instead of the installed one."""


def find_binary() -> str:
    """The path of the ``shotty`` binary.

    In order: ``$SHOTTY_BIN``; the scripts directory of the installation this package is in
    (where the wheel put the binary: a virtual environment's ``bin``, or the user scheme's);
    then ``shotty`` on ``PATH``.

    Raises:
        FileNotFoundError: none was found.
    """
    override = os.environ.get(BINARY_VAR)
    if override:
        if not os.access(override, os.X_OK):
            raise FileNotFoundError(f"${BINARY_VAR} is {override!r}, which is not an executable")
        return override
    name = "shotty.exe" if sys.platform == "win32" else "shotty"
    schemes = [sysconfig.get_default_scheme(), f"{os.name}_user"]
    for scheme in schemes:
        try:
            scripts = sysconfig.get_path("scripts", scheme)
        except KeyError:
            continue
        candidate = Path(scripts) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise FileNotFoundError(
        "the shotty binary was not found: install the wheel (pip install shotty), put shotty "
        f"on PATH, or set ${BINARY_VAR}"
    )
