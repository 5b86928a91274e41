"""MCP client for tests/mcp.rs: drives `shotty mcp` with the official Python SDK.

Usage: python3 tests/mcp_client.py SHOTTY_BINARY WORKDIR
Prints "ok" and exits 0 when every check passes; any failure raises.
"""

import asyncio
import base64
import json
import os
import struct
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {
    "spawn", "read", "write", "wait", "resize", "status", "kill", "list", "history",
    "capture", "inspect",
}


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"not a PNG: {data[:8]!r}"
    assert data[12:16] == b"IHDR", "the first PNG chunk is not IHDR"
    return struct.unpack(">II", data[16:24])


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


async def main(binary, workdir):
    params = StdioServerParameters(command=binary, args=["mcp"], env=dict(os.environ))
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
            cli = subprocess.run([binary, "session", "list"], capture_output=True, check=True)
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

            inspected = await call(session, "inspect", {"sessionId": sid})
            images = [c for c in inspected.content if c.type == "image"]
            texts = [c for c in inspected.content if c.type == "text"]
            assert len(images) == 1 and images[0].mime_type == "image/png", inspected.content
            width, height = png_size(base64.b64decode(images[0].data))
            assert width > 0 and height > 0
            svg_path = json.loads(texts[0].text)["svg"]
            assert svg_path.endswith(".svg") and os.path.isfile(svg_path), svg_path
            with open(svg_path, encoding="utf-8") as f:
                assert f.read().lstrip().startswith("<"), "the SVG is not XML"

            # The same screen captured to a file has the same size.
            out = os.path.join(workdir, "shot.png")
            captured = payload(await call(session, "capture", {"sessionId": sid, "path": out}))
            assert captured["artifact"] == {"path": out, "format": "png"}, captured
            with open(out, "rb") as f:
                assert png_size(f.read()) == (width, height), "inspect and capture differ"

            # More columns make a wider image.
            await call(session, "resize", {"sessionId": sid, "cols": 80, "rows": 12})
            wider = await call(session, "inspect", {"sessionId": sid})
            wide = next(c for c in wider.content if c.type == "image")
            w2, h2 = png_size(base64.b64decode(wide.data))
            assert w2 > width and h2 == height, ((width, height), (w2, h2))

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

            killed = payload(await call(session, "kill", {"sessionId": sid}))
            assert killed["stopped"] == [sid], killed
            # `kill` removes the session at once: its id is unknown afterwards.
            gone = payload(await call(session, "status", {"sessionId": sid}, expect_error=True))
            assert gone["error"]["code"] == "session_not_found", gone
            listed = payload(await call(session, "list", {"all": True}))
            assert sid not in [s["sessionId"] for s in listed["sessions"]], listed
    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
