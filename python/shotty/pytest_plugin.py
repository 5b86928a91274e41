"""The pytest plugin (entry point ``pytest11``): the ``tui`` fixture and screen goldens.

    def test_counter(tui):
        app = tui(["python3", "counter.py"], size=(40, 10))
        app.wait_for_text("count: 0").keys("Up")
        app.assert_screen()        # __snapshots__/test_counter/test_counter.svg

Goldens are compared cell by cell (``shotty diff``'s semantics, not the picture's bytes), so
they hold on every machine. ``--shotty-update`` (or ``UPDATE_GOLDEN=1``) rewrites them; a
missing golden is written and the test passes with a warning, unless ``CI`` is set: then it
fails. Every program a test started is ended at teardown, whatever the outcome.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Tuple

import pytest

from ._tui import DEFAULT_TIMEOUT, PathLike, Tui

UPDATE_OPTION = "--shotty-update"


class GoldenWritten(UserWarning):
    """A test wrote a golden that did not exist: review it and commit it."""


def _flag(name: str) -> bool:
    """Whether ``name`` is on: set, and not empty, ``0`` or ``false`` (the rule of shotty's
    ``session::golden::env_flag``)."""
    value = os.environ.get(name, "")
    return value not in ("", "0") and value.lower() != "false"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shotty", "terminal screens (shotty)")
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="rewrite the golden screens of tui.assert_screen() (also UPDATE_GOLDEN=1)",
    )


def _file_safe(name: str) -> str:
    return re.sub(r"[^\w.\[\]=,+-]", "_", name)


class TestTui(Tui):
    """A `Tui` that knows its test: `assert_screen` finds its golden by the test's name."""

    _factory: "TuiFactory"

    def assert_screen(  # type: ignore[override]
        self,
        name: Optional[str] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        golden: Optional[PathLike] = None,
    ) -> str:
        """Compares the screen with ``__snapshots__/<test file>/<test name>[-name].svg``
        beside the test file (or ``golden``), cell by cell; the report of differing cells is
        the assertion's message, and ``NAME.actual.svg`` / ``NAME.diff.svg`` are left beside
        the golden."""
        __tracebackhide__ = True
        factory = self._factory
        path = Path(golden) if golden is not None else factory.golden_path(name)
        verdict = Tui.assert_screen(
            self,
            path,
            update=factory.update,
            missing_fails=_flag("CI"),
            timeout=timeout,
        )
        if verdict == "new":
            warnings.warn(GoldenWritten(f"wrote the new golden {path}: review it and commit it"), stacklevel=2)
        return verdict


class TuiFactory:
    """The ``tui`` fixture: call it to start a program; every program it started is ended
    when the test ends."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request
        self.update = bool(request.config.getoption(UPDATE_OPTION)) or _flag("UPDATE_GOLDEN")
        self.started: list[TestTui] = []
        self._unnamed = 0

    def __call__(self, argv: Sequence[str], *, size: Tuple[int, int] = (80, 24), **options: Any) -> TestTui:
        """Starts ``argv`` as `shotty.spawn` does (same keyword arguments)."""
        tui = TestTui.spawn(argv, size=size, **options)
        tui._factory = self
        self.started.append(tui)
        return tui

    def assert_screen(self, name: Optional[str] = None, **kwargs: Any) -> str:
        """`TestTui.assert_screen` of the program started last."""
        __tracebackhide__ = True
        if not self.started:
            raise RuntimeError("tui.assert_screen(): no program was started in this test")
        return self.started[-1].assert_screen(name, **kwargs)

    def golden_path(self, name: Optional[str]) -> Path:
        """``__snapshots__/<test file stem>/<test name>[-name].svg`` beside the test file; a
        second unnamed golden in one test is ``-2``, a third ``-3``…"""
        node = self._request.node
        test_file = Path(str(node.path))
        test_name = node.name
        if node.cls is not None:
            test_name = f"{node.cls.__name__}.{test_name}"
        if name is None:
            self._unnamed += 1
            suffix = "" if self._unnamed == 1 else f"-{self._unnamed}"
        else:
            suffix = f"-{name}"
        stem = _file_safe(test_name + suffix)
        return test_file.parent / "__snapshots__" / test_file.stem / f"{stem}.svg"

    def close(self) -> None:
        """Ends every program started, the first failure raised once all were tried."""
        failure: Optional[BaseException] = None
        for tui in self.started:
            try:
                tui.close()
            except Exception as e:  # noqa: BLE001 - the others must still be ended
                failure = failure or e
        if failure is not None:
            raise failure


@pytest.fixture
def tui(request: pytest.FixtureRequest) -> Iterator[TuiFactory]:
    """Starts terminal programs for a test (``tui(argv, size=(cols, rows))``) and ends them
    all when it ends, also when it failed."""
    factory = TuiFactory(request)
    try:
        yield factory
    finally:
        factory.close()
