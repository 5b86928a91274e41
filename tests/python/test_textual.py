"""A Textual app (textual from PyPI) driven by keys and the mouse, its screen pinned by a
golden committed beside this file."""

from __future__ import annotations

import sys

from conftest import APPS


def test_counter_by_keys_and_mouse(tui):
    app = tui([sys.executable, str(APPS / "counter.py")], size=(60, 16))
    app.wait_for_text("count: 0", timeout=30)
    app.keys("Up", "Up").wait_for_text("count: 2")
    app.click_text("Add").wait_for_text("count: 3")
    app.assert_screen()
    app.keys("q")
    assert app.wait_for_exit() == 0
