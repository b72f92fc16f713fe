"""A host command whose server says it is cctui, lists the tools a host needs, and never
answers a tool call (``test_client``): a connection made with no tool call in it, or, with
``tools/list`` as HOLD, a handshake a test can cancel half-way.

``python silent_host.py PIDFILE ASKED HOLD TOOL...``: its pid goes to PIDFILE; it lists the
TOOLs; ASKED is written with the method when the first request of HOLD (``tools/call`` or
``tools/list``) comes in, which is never answered. Plain JSON-RPC over stdio, and the tools
come from the test (``client.REQUIRED_TOOLS``): importing them here imported the MCP stack,
~1.4 s of CPU per start."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> None:
    Path(sys.argv[1]).write_text(str(os.getpid()))
    asked = Path(sys.argv[2])
    hold, names = sys.argv[3], sys.argv[4:]
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == hold:
            asked.write_text(f"{method} {message.get('params', {}).get('name', '')}".strip())
            continue  # never answered
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "cctui", "version": "0.0.0"},
            }
        elif method == "tools/list":
            tools = [{"name": t, "inputSchema": {"type": "object"}} for t in names]
            result = {"tools": tools}
        else:
            continue  # notifications
        print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


if __name__ == "__main__":
    main()
