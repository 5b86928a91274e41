"""The Python API on real programs: the python REPL, vim, bash with shell integration, a
program that crashes, and what each failure tells."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import shotty
from conftest import alive, require


def test_the_python_repl_computes_and_exits():
    with shotty.spawn([sys.executable, "-q"], size=(50, 8)) as py:
        py.wait_for_text(">>> ").type("6 * 7").keys("Enter")
        py.wait_for_text("42")
        assert py.text().splitlines()[:3] == [">>> 6 * 7", "42", ">>>"]
        py.keys("Ctrl+D")
        assert py.wait_for_exit() == 0


def test_the_program_sees_this_process_environment_and_directory(tmp_path, monkeypatch):
    # Set after the host started: only a client's own environment can carry it.
    monkeypatch.setenv("SHOTTY_SUITE_MARK", "from-the-test")
    # pytest-xdist's workers have these; the program's size is its terminal's.
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    script = (
        "import os, shutil; e = os.environ; size = shutil.get_terminal_size();"
        "print(e['SHOTTY_SUITE_MARK'], e['EXTRA'], os.getcwd(), e['TERM'], e.get('CI', 'no-ci'),"
        " f'{size.columns}x{size.lines}')"
    )
    with shotty.spawn([sys.executable, "-c", script], size=(120, 4), env={"EXTRA": "x1"}, cwd=tmp_path) as p:
        assert p.wait_for_exit() == 0
        assert p.text().split("\n")[0] == f"from-the-test x1 {tmp_path} xterm-256color no-ci 120x4"


def test_vim_edits_and_writes_a_file(tmp_path):
    vim = require("vim")
    target = tmp_path / "note.txt"
    with shotty.spawn([vim, "-u", "NONE", "-i", "NONE", "-N", "-n", str(target)], size=(60, 10)) as v:
        v.wait_for_text("[New]")
        v.keys("i").type("hello from shotty").keys("Escape")
        v.wait_until_gone("-- INSERT --")
        v.type(":wq").keys("Enter")
        assert v.wait_for_exit() == 0
    assert target.read_text() == "hello from shotty\n"


def test_wait_until_gone_is_met_by_text_never_shown_and_waits_for_text_shown():
    # "Loading" never appears (or came and went before the wait): nothing to wait for.
    script = "echo ready; read x; printf '\\033[2J\\033[Hdone'; exec sleep 30"
    with shotty.spawn(["sh", "-c", script], size=(30, 4)) as p:
        p.wait_for_text("ready")
        started = time.monotonic()
        p.wait_until_gone("Loading", timeout=3)
        assert time.monotonic() - started < 2
        # The key that clears "ready" is given its moment before the screen is judged.
        p.keys("Enter").wait_until_gone("ready", timeout=5)
        assert p.text().startswith("done")
        with pytest.raises(shotty.WaitTimeout):
            p.wait_until_gone("done", timeout=0.3)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_program_left_open_ends_when_the_python_process_is_killed(tmp_path, how):
    script = tmp_path / "killed.py"
    script.write_text(
        "import sys, time, shotty\n"
        "p = shotty.spawn(['sleep', '300'], size=(20, 2))\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(300)\n"
    )
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(child.stdout.readline())
        assert alive(pid)
        child.send_signal(getattr(signal, how))
        child.wait(timeout=10)
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid)
    finally:
        child.kill()
        child.wait()


def test_bash_commands_report_their_exit_codes():
    bash = require("bash")
    with shotty.spawn([bash, "--norc", "--noprofile"], shell_integration=True, wait_ready=10) as sh:
        sh.type("echo one; echo two").keys("Enter")
        done = sh.wait_for_command()
        assert (done.text, done.exit_code, done.output.split()) == ("echo one; echo two", 0, ["one", "two"])
        sh.type("false").keys("Enter")
        assert sh.wait_for_command().exit_code == 1


def test_a_wait_that_times_out_shows_the_screen():
    with shotty.spawn(["sh", "-c", "echo ready; exec sleep 30"], size=(30, 4)) as p:
        p.wait_for_text("ready")
        started = time.monotonic()
        with pytest.raises(shotty.WaitTimeout) as caught:
            p.wait_for_text("never shown", timeout=0.3)
        assert time.monotonic() - started < 3
        message = str(caught.value)
        assert "timed out after 0.3 s waiting for text 'never shown'" in message
        assert "the screen (30x4):\n  |ready" in message
        assert caught.value.code == "wait_timeout"


def test_a_program_that_crashes_fails_the_wait_at_once_with_its_screen():
    crash = "import os, signal; print('about to crash', flush=True); os.kill(os.getpid(), signal.SIGSEGV)"
    with shotty.spawn([sys.executable, "-c", crash], size=(40, 4)) as p:
        with pytest.raises(shotty.ProgramExited) as caught:
            p.wait_for_text("a prompt that never comes", timeout=20)
        assert "the program ended (killed by SIGSEGV)" in str(caught.value)
        assert "  |about to crash" in str(caught.value)
        assert p.wait_for_exit() == -11


def test_input_to_an_ended_program_is_refused_with_its_screen():
    with shotty.spawn(["sh", "-c", "echo bye"], size=(20, 3)) as p:
        assert p.wait_for_exit() == 0
        with pytest.raises(shotty.ProgramExited) as caught:
            p.type("anything")
        assert caught.value.code == "session_exited"
        assert "  |bye" in str(caught.value)


def test_an_unknown_key_name_is_a_clear_error():
    with shotty.spawn(["cat"], size=(20, 3)) as p:
        with pytest.raises(shotty.ShottyError) as caught:
            p.keys("Ctrl+Nope")
        assert caught.value.code == "unsupported_key"
        assert "Ctrl+Nope" in str(caught.value)


def test_a_program_that_does_not_exist_is_refused():
    with pytest.raises(shotty.ShottyError) as caught:
        shotty.spawn(["/nonexistent/program"])
    assert caught.value.code == "session_not_started"
    assert "/nonexistent/program" in str(caught.value)


def test_close_ends_the_whole_process_tree():
    script = "sleep 60 & echo child $!; exec sleep 60"
    p = shotty.spawn(["sh", "-c", script], size=(30, 3))
    p.wait_for_regex(r"child \d+")
    child = int(p.text().split()[1])
    leader = p.pid
    assert alive(child) and alive(leader)
    p.close()
    p.close()  # a second close does nothing
    assert not alive(child) and not alive(leader)
    with pytest.raises(shotty.ShottyError):
        p.text()


def test_snapshot_resize_and_screenshots(tmp_path):
    with shotty.spawn(["sh", "-c", "printf '\\033[1;31mred\\033[0m\\n'; exec sleep 30"], size=(20, 3)) as p:
        p.wait_for_text("red")
        snap = p.snapshot()
        assert (snap["width"], snap["height"]) == (20, 3)
        cells = snap["rows"][0]["cells"]
        assert "".join(c["t"] for c in cells[:3]) == "red"
        assert snap["styles"][cells[0]["s"]] == {"bold": True, "fg": 1}
        p.resize(30, 5)
        assert p.size == (30, 5)
        assert p.snapshot()["width"] == 30
        svg = p.screenshot(tmp_path / "shot.svg", theme="dracula", window="macos")
        png = p.screenshot(tmp_path / "shot.png", scale=2)
        assert svg.read_text().startswith("<svg") and "red" in svg.read_text()
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        with pytest.raises(shotty.ShottyError) as caught:
            p.screenshot(tmp_path / "bad.svg", theme="no-such-theme")
        assert "no-such-theme" in str(caught.value)


def test_render_draws_raw_output_without_running_anything():
    svg = shotty.render(b"\x1b[1;32mok\x1b[0m done\n", width=20, height=2)
    assert svg.startswith(b"<svg") and b"done" in svg
    # The same input, byte for byte the same output.
    assert shotty.render(b"\x1b[1;32mok\x1b[0m done\n", width=20, height=2) == svg
    txt = shotty.render(b"a\nb", width=5, height=2, format="txt")
    assert txt.decode().split("\n")[:2] == ["a", "b"]
    png = shotty.render(b"x", 10, 1, format="png", theme="nord")
    assert png[:4] == b"\x89PNG"
    with pytest.raises(shotty.ShottyError):
        shotty.render(b"x", format="bmp")


def test_assert_screen_pins_a_screen_and_reports_cells(tmp_path):
    golden = tmp_path / "prompt.svg"
    with shotty.spawn(["sh", "-c", "printf 'name? '; exec cat"], size=(30, 3)) as p:
        p.wait_for_text("name?")
        assert p.assert_screen(golden) == "new"
        assert p.assert_screen(golden) == "matched"
        p.type("bob")
        with pytest.raises(shotty.ScreenMismatch) as caught:
            p.assert_screen(golden, timeout=0.5)
        assert isinstance(caught.value, AssertionError)
        assert 'col 6: expected " ", actual "b"' in str(caught.value)
        assert Path(caught.value.actual).exists() and Path(caught.value.diff).exists()


def test_the_binary_is_the_one_installed_beside_the_package():
    binary = Path(shotty.binary())
    assert binary.name == "shotty" and os.access(binary, os.X_OK)
    if not os.environ.get("SHOTTY_BIN"):
        # The wheel put it in this environment's scripts directory.
        assert binary.parent == Path(sys.executable).parent
    version = os.popen(f"{binary} --version").read()
    assert version.startswith("shotty ")


def test_a_host_dead_before_answering_is_asked_a_question_again_and_nothing_else(tmp_path, monkeypatch):
    # A host killed with our request read and unanswered leaves its socket behind.
    import socket
    import threading

    from shotty._host import Host

    for method, params, asked_again in (
        ("list", {"all": True}, True),
        ("start", {"command": ["true"]}, False),
    ):
        run, state = tmp_path / method / "run", tmp_path / method / "state"
        for d in (run, state):
            d.mkdir(parents=True, mode=0o700)
        monkeypatch.setenv("SHOTTY_RUNTIME_DIR", str(run))
        monkeypatch.setenv("SHOTTY_STATE_DIR", str(state))
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(run / "host.sock"))
        os.chmod(run / "host.sock", 0o600)
        listener.listen()

        def die() -> None:
            conn, _ = listener.accept()
            conn.makefile("rb").readline()
            conn.close()
            listener.close()

        dying = threading.Thread(target=die)
        dying.start()
        host = Host(shotty.binary())
        try:
            if asked_again:
                assert host.call(method, params)["sessions"] == []
            else:
                with pytest.raises(shotty.ShottyError) as refused:
                    host.call(method, params)
                assert refused.value.code == "host_unavailable"
        finally:
            dying.join(timeout=10)
            subprocess.run([shotty.binary(), "session", "stop", "--all", "--yes"], capture_output=True)
