"""MCP client for tests/frontends/mcp.rs: drives `shotty mcp` with the official Python SDK.

Usage: python3 tests/mcp_client.py SHOTTY_BINARY WORKDIR HOME
(HOME: the home directory for the server and the programs it starts.)
Prints "ok" and exits 0 when every check passes; any failure raises.
"""

import asyncio
import base64
import glob
import json
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {
    "spawn", "read", "write", "wait", "resize", "status", "kill", "list", "history",
    "capture", "inspect", "mark", "export", "find", "commands", "restart", "output",
}
INPUT_ECHO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support", "inputecho.py")


async def agent_tools(session):
    """SPEC §11 through MCP: shell integration (spawn by name, wait for a command, its exit
    code and output, the command list, the prompt), find, cheap polling with read's `since`,
    and mouse clicks encoded for the program's mode."""
    shell = payload(await call(session, "spawn", {
        "command": "bash", "shellIntegration": True, "waitReady": 15000,
        "name": "agent-shell", "env": {"PS1": "$ "},
    }))
    assert shell["ready"] is True and shell["name"] == "agent-shell", shell
    named = {"sessionId": "agent-shell"}
    await call(session, "write", {**named, "action": [{"text": "echo FIND-ME; false"},
                                                      {"key": "Enter"}]})
    done = payload(await call(session, "wait", {**named, "command": True, "timeout": 10000}))
    command = done["command"]
    assert (command["text"], command["exitCode"], command["output"]) == (
        "echo FIND-ME; false", 1, "FIND-ME"), done
    log = payload(await call(session, "output", {**named, "since": 0}))
    assert "FIND-ME\n" in log["text"] and "\x1b" not in log["text"], log
    later = payload(await call(session, "output", {**named, "since": log["end"], "waitMs": 200}))
    assert later["start"] == log["end"], later
    listed = payload(await call(session, "commands", named))
    assert [c["exitCode"] for c in listed["commands"]] == [1], listed
    read = payload(await call(session, "read", named))
    assert read["prompt"] == {"ready": True} and len(read["hash"]) == 16, read
    unchanged = payload(await call(session, "read", {**named, "since": read["version"]}))
    assert unchanged["changed"] is False and "screen" not in unchanged, unchanged
    assert unchanged["hash"] == read["hash"], unchanged
    restarted = payload(await call(session, "restart", named))
    assert restarted["previousSessionId"] == shell["sessionId"], restarted
    assert restarted["name"] == "agent-shell" and restarted["sessionId"] != shell["sessionId"]
    old = payload(await call(session, "list", {"all": True}))
    old = next(s for s in old["sessions"] if s["sessionId"] == shell["sessionId"])
    assert (old["state"], old["stopReason"]) == ("stopped", "restart"), old
    found = payload(await call(session, "find", {"sessionId": shell["sessionId"],
                                                 "text": "FIND-ME"}))
    rows = read["screen"]["text"].split("\n")
    # The echoed command line and the output line.
    places = [(m["row"], m["col"]) for m in found["matches"]]
    assert places == [(r, rows[r].index("FIND-ME")) for r in range(len(rows))
                      if "FIND-ME" in rows[r]], (places, rows)
    # A name and `last` stand for the id in every tool, status too.
    for reference in ("agent-shell", "last"):
        status = payload(await call(session, "status", {"sessionId": reference}))
        assert status["sessionId"] == restarted["sessionId"], (reference, status)
    await call(session, "kill", named)

    echo = payload(await call(session, "spawn", {"command": "python3", "args": [INPUT_ECHO]}))
    sid = {"sessionId": echo["sessionId"]}
    await call(session, "wait", {**sid, "match": "ready", "timeout": 15000})
    click = {"mouse": {"action": "click", "row": 2, "col": 4}}
    err = payload(await call(session, "write", {**sid, "action": click}, expect_error=True))
    assert err["error"]["code"] == "invalid_operation", err
    await call(session, "write", {**sid, "action": {"text": "!m1000,1006"}})
    await call(session, "wait", {**sid, "match": "MODES 1000,1006", "timeout": 10000})
    await call(session, "write", {**sid, "action": [click, {"delay": 20},
                                                   {"mouse": {"action": "click",
                                                              "text": "HEX"}}]})
    # The third read (after the mode switch and the first click, which the program showed as
    # "2 HEX:…") is the second click, aimed at "HEX" on that line: row 0, column 2.
    await call(session, "wait", {**sid, "match": "3 HEX:1b5b3c303b333b314d1b5b3c303b333b316d",
                                 "timeout": 10000})
    await call(session, "kill", sid)


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"not a PNG: {data[:8]!r}"
    assert data[12:16] == b"IHDR", "the first PNG chunk is not IHDR"
    return struct.unpack(">II", data[16:24])


def png_decode(data):
    """Decodes an 8-bit RGB or RGBA PNG with the standard library alone: every chunk's CRC,
    IHDR, the zlib stream of the IDATs, each scanline's filter. Returns (width, height, rows),
    rows a list of per-row lists of pixel tuples."""
    width, height = png_size(data)
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert len(body) == length, f"chunk {kind!r} is cut short"
        assert zlib.crc32(kind + body) == crc, f"chunk {kind!r} has a bad CRC"
        chunks.append((kind, body))
        pos += 12 + length
    assert chunks[-1][0] == b"IEND", [k for k, _ in chunks]
    depth, colour, compression, filtering, interlace = struct.unpack(">BBBBB", chunks[0][1][8:13])
    assert (depth, compression, filtering, interlace) == (8, 0, 0, 0), chunks[0][1]
    channels = {2: 3, 6: 4}[colour]
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = width * channels
    assert len(raw) == height * (stride + 1), (len(raw), width, height, channels)
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                near = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + near) & 0xFF
            else:
                assert kind == 0, f"row {y}: unknown filter {kind}"
        rows.append([tuple(line[x:x + channels]) for x in range(0, stride, channels)])
        prev = line
    return width, height, rows


def svg_screen(path):
    """The SVG file at `path` parsed: (the snapshot in its <metadata>, the screen's rows from
    that snapshot, the text of all its <text>s)."""
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg", root.tag
    metadata = root.find(ns + "metadata")
    assert metadata is not None, "the SVG has no <metadata>"
    snapshot = json.loads(metadata.text)
    assert len(snapshot["rows"]) == snapshot["height"], snapshot["height"]
    rows = []
    for row in snapshot["rows"]:
        assert len(row["cells"]) == snapshot["width"], row
        rows.append("".join(cell["t"] for cell in row["cells"]).rstrip())
    spans = "".join("".join(t.itertext()) for t in root.iter(ns + "text"))
    return snapshot, rows, spans


async def inspect(session, sid):
    """Inspects `sid`: (decoded PNG, SVG snapshot, its rows, its drawn text)."""
    result = await call(session, "inspect", {"sessionId": sid})
    images = [c for c in result.content if c.type == "image"]
    texts = [c for c in result.content if c.type == "text"]
    assert len(images) == 1 and images[0].mime_type == "image/png", result.content
    assert len(texts) == 1, result.content
    described = json.loads(texts[0].text)
    assert described["sessionId"] == sid, described
    svg_path = described["svg"]
    assert svg_path.endswith(".svg") and os.path.isfile(svg_path), svg_path
    assert os.stat(svg_path).st_mode & 0o777 == 0o600, oct(os.stat(svg_path).st_mode)
    # Kept with the session's own files (in this test's state directory), deleted with them.
    assert svg_path.startswith(os.path.join(os.environ["SHOTTY_STATE_DIR"], "inspect", sid) + "/"), svg_path
    png = png_decode(base64.b64decode(images[0].data))
    return (png, *svg_screen(svg_path))


def colours(png):
    return {pixel for row in png[2] for pixel in row}


def payload(result):
    """The JSON document of a tool result (structured content, else the first text item)."""
    if result.structured_content is not None:
        return result.structured_content
    for item in result.content:
        if item.type == "text":
            return json.loads(item.text)
    raise AssertionError(f"no JSON in {result!r}")


async def call(session, name, args, expect_error=False):
    result = await session.call_tool(name, args)
    if bool(result.is_error) != expect_error:
        raise AssertionError(f"{name}({args}) isError={result.is_error}: {result.content!r}")
    return result


async def main(binary, workdir, home):
    server_env = dict(os.environ, HOME=home)
    params = StdioServerParameters(command=binary, args=["mcp"], env=server_env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "shotty", init.server_info

            tools = (await session.list_tools()).tools
            names = {t.name for t in tools}
            assert names == EXPECTED_TOOLS, f"tools: {sorted(names)}"
            for t in tools:
                assert t.description, f"{t.name} has no description"
                assert t.input_schema.get("type") == "object", f"{t.name}: {t.input_schema}"
            spawn_schema = next(t for t in tools if t.name == "spawn").input_schema
            assert "command" in spawn_schema.get("required", []), spawn_schema
            # Plain schemas: some function-calling clients reject references and unions.
            for t in tools:
                text = json.dumps(t.input_schema)
                for construct in ("$ref", "anyOf", "oneOf", "$defs"):
                    assert construct not in text, f"{t.name} uses {construct}: {text}"
            props = spawn_schema["properties"]
            assert props["command"]["type"] == "string", props["command"]
            assert props["args"]["items"]["type"] == "string", props["args"]
            for size in ("cols", "rows"):
                assert (props[size]["minimum"], props[size]["maximum"]) == (1, 500), props[size]
            for t in tools:
                for name, prop in t.input_schema.get("properties", {}).items():
                    if name in ("timeout", "stableFor", "idle"):
                        assert "milliseconds" in prop.get("description", ""), (t.name, name, prop)

            # The program as a string, its arguments apart (the socket-pty adapter's form);
            # `timeout` in milliseconds like every duration.
            short = payload(await call(session, "spawn", {
                "command": "sh", "args": ["-c", "echo from-a-string; exec sleep 30"],
                "timeout": 500,
            }))
            await call(session, "wait", {"sessionId": short["sessionId"], "match": "from-a-string",
                                         "timeout": 10000})
            ended = payload(await call(session, "wait", {"sessionId": short["sessionId"],
                                                         "exit": True, "timeout": 10000}))
            assert ended["state"] == "stopped", ended
            single = payload(await call(session, "spawn", {"command": "cat"}))
            await call(session, "write", {"sessionId": single["sessionId"], "action": {"text": "x"}})
            await call(session, "kill", {"sessionId": single["sessionId"]})

            started = payload(await call(session, "spawn", {
                "command": ["bash", "--norc", "--noprofile", "-i"],
                "env": {"PS1": "$ "},
                "cols": 60,
                "rows": 12,
                "cwd": workdir,
                "title": "mcp-test",
            }))
            sid = started["sessionId"]
            assert sid.startswith("s_"), started
            assert started["state"] == "running", started

            listed = payload(await call(session, "list", {}))
            assert sid in [s["sessionId"] for s in listed["sessions"]], listed
            status = payload(await call(session, "status", {"sessionId": sid}))
            assert status["state"] == "running" and status["width"] == 60, status
            # The CLI sees the same session (same host).
            cli = subprocess.run([binary, "session", "list"], capture_output=True, check=True,
                                 env=server_env)
            cli_ids = [s["sessionId"] for s in json.loads(cli.stdout)["sessions"]]
            assert sid in cli_ids, cli.stdout

            await call(session, "wait", {"sessionId": sid, "match": "$", "timeout": 10000})
            written = payload(await call(session, "write", {
                "sessionId": sid, "action": [{"text": "echo hi"}, {"key": "Enter"}],
            }))
            assert written["written"] == len("echo hi\r"), written

            waited = payload(await call(session, "wait", {
                "sessionId": sid, "regex": "(?m)^hi$", "timeout": 10000,
            }))
            assert waited["result"] == "matched", waited
            await call(session, "wait", {"sessionId": sid, "match": "hi", "timeout": 10000})

            screen = payload(await call(session, "read", {"sessionId": sid}))["screen"]
            assert "echo hi" in screen["text"] and "\nhi\n" in screen["text"], screen["text"]
            assert (screen["width"], screen["height"]) == (60, 12), screen
            # The blank rows below the prompt are left out unless asked for.
            assert not screen["text"].endswith("\n"), screen["text"]
            untrimmed = payload(await call(session, "read", {"sessionId": sid, "trim": False}))
            assert untrimmed["screen"]["text"].count("\n") == 11, untrimmed["screen"]["text"]
            rows = screen["text"].split("\n")
            hi_row = rows.index("hi")
            ranged = payload(await call(session, "read", {
                "sessionId": sid, "start": hi_row, "end": hi_row, "structured": True,
            }))["screen"]
            assert ranged["text"] == "hi", ranged["text"]
            assert ranged["structured"]["width"] == 60, ranged["structured"].keys()
            await call(session, "read", {"sessionId": sid, "start": 2}, expect_error=True)

            history = payload(await call(session, "history", {"sessionId": sid, "grep": "^hi$"}))
            assert [l["text"] for l in history["lines"]] == ["hi"], history

            # A second session with other text and another size: each inspect must show
            # its own session's screen, never the other's.
            other = payload(await call(session, "spawn", {
                "command": "sh", "args": ["-c", "echo other-screen-7315; exec sleep 60"],
                "cols": 40, "rows": 6, "title": "mcp-other",
            }))["sessionId"]
            await call(session, "wait", {"sessionId": other, "match": "other-screen-7315",
                                         "timeout": 10000})

            png, snapshot, svg_rows, spans = await inspect(session, sid)
            assert (snapshot["width"], snapshot["height"]) == (60, 12), snapshot["width"]
            # The snapshot's rows are the screen `read` gave, row by row.
            assert svg_rows[:len(rows)] == [r.rstrip() for r in rows], (svg_rows, rows)
            assert "$ echo hi" in svg_rows and "hi" in svg_rows, svg_rows
            assert "echo hi" in spans and "other-screen-7315" not in spans, spans
            assert "other-screen-7315" not in "\n".join(svg_rows), svg_rows
            width, height = png[0], png[1]
            # Text drawn on a background: more than one colour.
            assert len(colours(png)) > 1, "the PNG is one flat colour"

            other_png, other_snapshot, other_rows, other_spans = await inspect(session, other)
            assert (other_snapshot["width"], other_snapshot["height"]) == (40, 6), (
                other_snapshot["width"], other_snapshot["height"])
            assert other_rows[0] == "other-screen-7315", other_rows
            assert "other-screen-7315" in other_spans, other_spans
            assert "echo hi" not in other_spans and "echo hi" not in "\n".join(other_rows)
            assert other_png[2] != png[2], "both sessions give the same PNG"

            # The same screen captured to a file has the same size.
            out = os.path.join(workdir, "shot.png")
            captured = payload(await call(session, "capture", {"sessionId": sid, "path": out}))
            assert captured["artifact"] == {"path": out, "format": "png"}, captured
            with open(out, "rb") as f:
                assert png_size(f.read()) == (width, height), "inspect and capture differ"

            # The recording: a marker, the asciicast with it, an animation of the run.
            marked = payload(await call(session, "mark", {"sessionId": sid, "label": "shot"}))
            assert marked["label"] == "shot" and marked["atMs"] >= 0, marked
            cast_path = os.path.join(workdir, "run.cast")
            exported = payload(await call(session, "export", {"sessionId": sid, "path": cast_path}))
            assert exported["path"] == cast_path and exported["format"] == "cast", exported
            with open(cast_path) as f:
                events = [json.loads(line) for line in f]
            assert events[0]["version"] == 2, events[0]
            assert ["m", "shot"] in [e[1:] for e in events[1:]], events[-3:]
            assert any(e[1] == "i" for e in events[1:]), "no input recorded"
            svg_path = os.path.join(workdir, "run.svg")
            animated = payload(await call(session, "export", {
                "sessionId": sid, "path": svg_path, "showKeys": True,
            }))
            assert animated["format"] == "svg", animated
            with open(svg_path) as f:
                assert "echo hi" in f.read(), "the animation lacks the screen"
            err = payload(await call(session, "export", {
                "sessionId": sid, "path": os.path.join(workdir, "x.bmp"),
            }, expect_error=True))
            assert err["error"]["code"] == "invalid_request", err

            # More columns make a wider image, by as many cells as the columns added.
            await call(session, "resize", {"sessionId": sid, "cols": 80, "rows": 12})
            wide_png, wide_snapshot, _, wide_spans = await inspect(session, sid)
            assert wide_snapshot["width"] == 80 and "echo hi" in wide_spans, wide_snapshot
            w2, h2 = wide_png[0], wide_png[1]
            assert w2 > width and h2 == height, ((width, height), (w2, h2))
            # Image size = margins + cells: the 20 columns added give the cell width, which
            # must account for the 40-column session's width (20 fewer) too, give or take a
            # pixel of rounding; likewise the 6 rows it lacks for the row height.
            cell_w = (w2 - width) / 20
            assert abs((width - other_png[0]) - 20 * cell_w) <= 1, (width, w2, other_png[0])
            row_h = (height - other_png[1]) / 6
            assert row_h > 0 and height - 12 * row_h >= 0, (height, other_png[1])
            assert width - 60 * cell_w >= 0, (width, cell_w)
            await call(session, "kill", {"sessionId": other})

            # Errors are tool errors with the stable code.
            bad = "s_" + "0" * 32
            for name, args in [
                ("read", {"sessionId": bad}),
                ("inspect", {"sessionId": bad}),
                ("write", {"sessionId": bad, "action": {"text": "x"}}),
                ("status", {"sessionId": bad}),
            ]:
                err = payload(await call(session, name, args, expect_error=True))
                assert err["error"]["code"] == "session_not_found", (name, err)
                assert err["error"]["message"], (name, err)
            err = payload(await call(session, "write", {
                "sessionId": sid, "action": {"key": "NoSuchKey"},
            }, expect_error=True))
            assert err["error"]["code"] == "unsupported_key", err
            timed_out = payload(await call(session, "wait", {
                "sessionId": sid, "match": "never printed", "timeout": 300,
            }, expect_error=True))
            assert timed_out["error"]["code"] == "wait_timeout", timed_out

            await agent_tools(session)

            inspected = glob.glob(os.path.join(os.environ["SHOTTY_STATE_DIR"], "inspect", sid, "*.svg"))
            assert inspected, "inspect left no SVG"
            killed = payload(await call(session, "kill", {"sessionId": sid}))
            assert killed["stopped"] == [sid], killed
            assert not [p for p in inspected if os.path.exists(p)], "an inspect SVG outlived its session"
            # `kill` removes the session at once: its id is unknown afterwards.
            gone = payload(await call(session, "status", {"sessionId": sid}, expect_error=True))
            assert gone["error"]["code"] == "session_not_found", gone
            listed = payload(await call(session, "list", {"all": True}))
            assert sid not in [s["sessionId"] for s in listed["sessions"]], listed
    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
