"""The permission dialog: a v2 request and a host app."""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from acp_tui.protocol.codec import decode_permission_request
from acp_tui.ui.dialogs.permission import PermissionRequest
from acp_tui.ui.key_order import KeysInOrderApp
from acp_tui.ui.themes import load_shipped_themes
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES

PATCH = (
    "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
    "@@ -1,4 +1,5 @@\n import os\n-print('hi')\n+print('hello')\n+print('world')\n def main():\n     pass\n"
)


FOUR_OPTIONS = [
    {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "always", "name": "Yes, allow all edits during this session", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Never", "kind": "reject_always"},
]


V2_REQUEST: dict[str, Any] = {
    "sessionId": "s1",
    "title": "Edit src/app.py",
    "description": "The agent wants to change the greeting.",
    "subject": {
        "type": "tool_call",
        "toolCall": {
            "toolCallId": "t1",
            "title": "Edit src/app.py",
            "kind": "edit",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "Replacing the greeting."}},
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "src/app.py"}],
                    "patch": {"format": "git_patch", "text": PATCH},
                },
            ],
            "locations": [{"path": "src/app.py", "line": 2}],
        },
    },
    "options": FOUR_OPTIONS,
}


def v2(**changes: Any) -> PermissionRequest:
    request = decode_permission_request(json.dumps({**V2_REQUEST, **changes}).encode(), 2)
    assert isinstance(request, PermissionRequest)
    return request


class DialogApp(KeysInOrderApp[None]):
    """A conversation-like scroller under the dialog, themed like the real app."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(EXTRA_THEME_VARIABLES)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="chat"):
            for n in range(60):
                yield Static(f"conversation line {n}")

    def on_mount(self) -> None:
        for theme in load_shipped_themes():
            self.register_theme(theme)
        self.theme = "acp-dark"
