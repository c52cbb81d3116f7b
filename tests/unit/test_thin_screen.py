"""The chat screen stays thin: it renders and turns keys into intents (docs/architecture.md).

New capabilities go into a service, a dialog, a renderer or a small helper module, not into the screen.
"""

from __future__ import annotations

import ast

from tests.support.paths import REPO

CHAT = REPO / "acp_tui" / "ui" / "chat" / "screen.py"


#: What the screen reached when issue 39 split it (19 methods, 311 lines), plus a little room: a capability
#: that needs more goes into a composed part (prompting.py, stop_keys.py, card_actions.py are the pattern).
MAX_METHODS = 22
MAX_LINES = 340


def test_the_chat_screen_has_at_most_22_methods_in_at_most_340_lines() -> None:
    source = CHAT.read_text(encoding="utf-8")
    tree = ast.parse(source)
    [screen] = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ChatScreen"]
    methods = [node.name for node in screen.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert len(methods) <= MAX_METHODS, methods
    assert len(source.splitlines()) <= MAX_LINES
