"""A host command whose server says it is cctui, lists the tools a host needs, and never
answers a tool call: a handshake that a test can cancel half-way (``test_client``).

``python silent_host.py PIDFILE ASKED``: its pid goes to PIDFILE; ASKED is written when the
first tool call comes in. Plain JSON-RPC over stdio, so nothing here depends on the SDK."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from cctui.remote.client import REQUIRED_TOOLS


def main() -> None:
    Path(sys.argv[1]).write_text(str(os.getpid()))
    asked = Path(sys.argv[2])
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "cctui", "version": "0.0.0"},
            }
        elif method == "tools/list":
            tools = [{"name": t, "inputSchema": {"type": "object"}} for t in REQUIRED_TOOLS]
            result = {"tools": tools}
        elif method == "tools/call":
            asked.write_text(message["params"]["name"])
            continue  # never answered
        else:
            continue  # notifications
        print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


if __name__ == "__main__":
    main()
