"""The same Textual app pinned by pytest-textual-snapshot (Textual's own renderer, in
process) and by shotty's plugin (a real PTY, shotty's emulator): both catch the same
deliberate regression, a colour only a picture of the screen shows."""

from __future__ import annotations

import os

import pytest

from conftest import APPS

BOTH = f"""
import sys
APP = {str(APPS / "counter.py")!r}

def test_textual_snapshot(snap_compare):
    assert snap_compare(APP, press=["up", "up"], terminal_size=(60, 16))

def test_shotty(tui):
    app = tui([sys.executable, APP], size=(60, 16))
    app.wait_for_text("count: 0", timeout=30)
    app.keys("Up", "Up").wait_for_text("count: 2")
    app.assert_screen()
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    dev = ("-p", "shotty.pytest_plugin") if os.environ.get("SHOTTY_SUITE_DEV") else ()
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *dev, *args)


def test_both_plugins_catch_the_same_colour_regression(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(test_both=BOTH)
    monkeypatch.setenv("COUNTER_COLOR", "green")
    run(pytester, "--snapshot-update", "--shotty-update").assert_outcomes(passed=2)
    run(pytester).assert_outcomes(passed=2)

    monkeypatch.setenv("COUNTER_COLOR", "red")
    result = run(pytester)
    outcomes = {r.nodeid.split("::")[-1]: r.outcome for r in _reports(result)}
    assert outcomes == {"test_textual_snapshot": "failed", "test_shotty": "failed"}, result.stdout.str()
    # shotty says which cells changed and how: the colour of "count: 2".
    result.stdout.fnmatch_lines(
        [
            "*the screen differs from*test_shotty.svg in 20 cell(s)*",
            '*col 26: expected "c" {"fg":"#008000",*actual "c" {"fg":"#ff0000",*',
        ]
    )


def _reports(result: pytest.RunResult):
    # Outcomes per test from pytest's short summary (-rA would be another run).
    for line in result.outlines:
        for outcome in ("PASSED", "FAILED"):
            if line.startswith(outcome + " "):
                yield type("Report", (), {"nodeid": line.split()[1], "outcome": outcome.lower()})
