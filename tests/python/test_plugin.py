"""The pytest plugin, run as users run it: inner test files under a real pytest (pytester,
in subprocesses), their outcomes and messages checked."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import pytest

from conftest import alive

PROMPT_TEST = """
def test_prompt(tui):
    p = tui(["sh", "-c", "printf 'name? '; read n; echo \\"hi $n\\"; exec cat"], size=(30, 4))
    p.wait_for_text("name?")
    p.type(NAME).keys("Enter")
    p.wait_for_text("hi")
    p.assert_screen()
"""


def prompt_test(pytester: pytest.Pytester, name: str) -> None:
    pytester.makepyfile(test_prompt=f"NAME = {name!r}\n" + PROMPT_TEST)


def run(pytester: pytest.Pytester, *args: str, ci: bool = False) -> pytest.RunResult:
    if ci:
        os.environ["CI"] = "true"
    else:
        os.environ.pop("CI", None)
    # Installed, the plugin comes by its entry point; python/ in development is named.
    dev = ("-p", "shotty.pytest_plugin") if os.environ.get("SHOTTY_SUITE_DEV") else ()
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *dev, *args)


@pytest.fixture(autouse=True)
def keep_ci(monkeypatch):
    # run() sets CI for the inner run only; monkeypatch puts the outer value back.
    monkeypatch.setenv("CI", os.environ.get("CI", ""))


GOLDEN = Path("__snapshots__/test_prompt/test_prompt.svg")


def test_the_wheel_registers_the_plugin():
    if os.environ.get("SHOTTY_SUITE_DEV"):
        pytest.skip("python/ in development: the plugin is loaded with -p, not installed")
    entry = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "shotty"]
    assert [e.value for e in entry] == ["shotty.pytest_plugin"]


def test_a_new_golden_is_written_then_matched(pytester):
    prompt_test(pytester, "ann")
    first = run(pytester)
    first.assert_outcomes(passed=1, warnings=1)
    first.stdout.fnmatch_lines(["*GoldenWritten: wrote the new golden*test_prompt.svg: review it and commit it*"])
    golden = pytester.path / GOLDEN
    assert golden.read_text().startswith("<svg")
    run(pytester).assert_outcomes(passed=1)


def test_a_differing_screen_fails_with_the_cells_and_pictures(pytester):
    prompt_test(pytester, "ann")
    run(pytester).assert_outcomes(passed=1, warnings=1)
    prompt_test(pytester, "bob")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ScreenMismatch: the screen differs from *test_prompt.svg in 6 cell(s):*",
            "*row 0:*",
            "*-*name? ann*",
            "*+*name? bob*",
            '*col 6: expected "a", actual "b"*',
        ]
    )
    for what in ("actual", "diff"):
        assert (pytester.path / GOLDEN.with_name(f"test_prompt.{what}.svg")).exists()
    # --shotty-update rewrites it; the pictures of the old failure go.
    run(pytester, "--shotty-update").assert_outcomes(passed=1)
    assert "bob" in (pytester.path / GOLDEN).read_text()
    assert not (pytester.path / GOLDEN.with_name("test_prompt.actual.svg")).exists()
    run(pytester).assert_outcomes(passed=1)


def test_in_ci_a_missing_golden_fails(pytester):
    prompt_test(pytester, "ann")
    result = run(pytester, ci=True)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*the golden *test_prompt.svg does not exist, and missing goldens fail (CI is set)*pytest --shotty-update*"]
    )
    assert not (pytester.path / GOLDEN).exists()
    assert (pytester.path / GOLDEN.with_name("test_prompt.actual.svg")).exists()
    # Asked to update, it is written, CI or not.
    run(pytester, "--shotty-update", ci=True).assert_outcomes(passed=1)
    assert "ann" in (pytester.path / GOLDEN).read_text()


def test_update_golden_set_to_false_or_0_compares(pytester, monkeypatch):
    prompt_test(pytester, "ann")
    run(pytester).assert_outcomes(passed=1, warnings=1)
    prompt_test(pytester, "bob")
    for off in ("false", "False", "0", ""):
        monkeypatch.setenv("UPDATE_GOLDEN", off)
        run(pytester).assert_outcomes(failed=1)
        assert "ann" in (pytester.path / GOLDEN).read_text(), off
    monkeypatch.setenv("UPDATE_GOLDEN", "1")
    run(pytester).assert_outcomes(passed=1)
    assert "bob" in (pytester.path / GOLDEN).read_text()


def test_names_and_several_goldens_in_one_test(pytester):
    pytester.makepyfile(
        test_many="""
import pytest

@pytest.mark.parametrize("word", ["a b", "c/d"])
def test_words(tui, word):
    p = tui(["sh", "-c", f"echo '{word}'; exec sleep 30"], size=(10, 2))
    p.wait_for_text(word)
    p.assert_screen()
    p.assert_screen()
    tui.assert_screen("named")
"""
    )
    run(pytester).assert_outcomes(passed=2, warnings=6)
    written = sorted(p.name for p in (pytester.path / "__snapshots__/test_many").iterdir())
    assert written == [
        "test_words[a_b]-2.svg",
        "test_words[a_b]-named.svg",
        "test_words[a_b].svg",
        "test_words[c_d]-2.svg",
        "test_words[c_d]-named.svg",
        "test_words[c_d].svg",
    ]


def test_every_program_is_ended_when_a_test_fails(pytester, tmp_path):
    pids = tmp_path / "pids"
    pytester.makepyfile(
        test_failing=f"""
def test_fails(tui):
    for n in range(3):
        p = tui(["sh", "-c", "sleep 60 & echo $! >> {pids}; exec sleep 60"], size=(20, 2))
        with open("{pids}", "a") as f:
            f.write(f"{{p.pid}}\\n")
    p.wait_for_text("never", timeout=0.2)
"""
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*WaitTimeout: timed out after 0.2 s waiting for text 'never'*"])
    seen = [int(line) for line in pids.read_text().split()]
    assert len(seen) == 6
    assert [pid for pid in seen if alive(pid)] == []


def test_it_runs_under_pytest_xdist(pytester):
    tests = "\n".join(
        f"""
def test_{n}(tui):
    p = tui(["sh", "-c", "echo worker {n}; exec sleep 30"], size=(20, 2))
    p.wait_for_text("worker {n}")
    p.assert_screen()
"""
        for n in range(8)
    )
    pytester.makepyfile(test_parallel=tests)
    first = run(pytester, "-n", "4")
    first.assert_outcomes(passed=8, warnings=8)
    first.stdout.fnmatch_lines(["*4 workers*"])
    run(pytester, "-n", "auto").assert_outcomes(passed=8)
    run(pytester, "-n", "4", ci=True).assert_outcomes(passed=8)
