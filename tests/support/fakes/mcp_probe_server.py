"""A minimal stdio MCP server for tests: appends every method it is asked to a record file.

Run: `python mcp_probe_server.py RECORD`. It answers `initialize` (echoing the protocol version asked),
`tools/list` (one tool, `acp_tui_probe`) and `tools/call`, and ignores notifications; the record shows
that an agent started it and what it asked (written by hand for issue 26 from the MCP specification's
lifecycle: initialize, notifications/initialized, tools/list).
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    record = open(sys.argv[1], "a", encoding="utf-8")
    record.write(json.dumps({"started": True}) + "\n")
    record.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method = message.get("method")
        record.write(json.dumps({"method": method}) + "\n")
        record.flush()
        if "id" not in message:
            continue
        result: object
        if method == "initialize":
            version = message.get("params", {}).get("protocolVersion", "2025-06-18")
            result = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "acp-tui-probe", "version": "1"},
            }
        elif method == "tools/list":
            result = {
                "tools": [
                    {
                        "name": "acp_tui_probe",
                        "description": "Says hello (a test tool).",
                        "inputSchema": {"type": "object", "properties": {}},
                    }
                ]
            }
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "hello from the probe"}]}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
