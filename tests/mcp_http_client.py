"""MCP client for tests/frontends/web.rs: drives `shotty web`'s /mcp with the official Python
SDK's Streamable HTTP client.

Usage: python3 tests/mcp_http_client.py URL TOKEN
Prints "ok" and exits 0 when every check passes; any failure raises.
"""

import asyncio
import base64
import struct
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

# The same tool table as `shotty mcp` on stdio, read the same way.
from mcp_client import EXPECTED_TOOLS, call, payload


async def drive(url, token):
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "shotty", init.server_info
                names = {t.name for t in (await session.list_tools()).tools}
                assert names == EXPECTED_TOOLS, sorted(names)

                spawned = payload(await call(session, "spawn", {
                    "command": "sh", "args": ["-c", "printf 'ready> '; exec cat"],
                    "cols": 40, "rows": 5, "name": "over-http",
                }))
                sid = spawned["sessionId"]
                await call(session, "wait", {"sessionId": sid, "match": "ready>", "timeout": 10000})
                await call(session, "write", {"sessionId": sid, "action": [{"text": "hello web"}]})
                await call(session, "wait", {"sessionId": sid, "match": "hello web", "timeout": 10000})
                screen = payload(await call(session, "read", {"sessionId": sid}))
                assert screen["screen"]["text"].startswith("ready> hello web"), screen

                shot = await call(session, "inspect", {"sessionId": sid})
                images = [c for c in shot.content if c.type == "image"]
                assert len(images) == 1 and images[0].mime_type == "image/png", shot.content
                png = base64.b64decode(images[0].data)
                assert png[:8] == b"\x89PNG\r\n\x1a\n", png[:8]
                width, height = struct.unpack(">II", png[16:24])
                assert width > 40 * 7 and height > 5 * 14, (width, height)

                await call(session, "kill", {"sessionId": sid})


async def refused(url):
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize"},
                                   headers={"Accept": "application/json, text/event-stream"})
        assert response.status_code == 401, response.status_code


async def main(url, token):
    await refused(url)
    await drive(url, token)
    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
