"""The chat screen stays thin: it renders and turns keys into intents (docs/architecture.md).

New capabilities go into a service, a dialog, a renderer or a small helper module, not into the screen.
"""

from __future__ import annotations

import ast

from tests.support.paths import REPO

CHAT = REPO / "acp_tui" / "ui" / "chat" / "screen.py"


def test_the_chat_screen_has_at_most_25_methods_in_at_most_400_lines() -> None:
    source = CHAT.read_text(encoding="utf-8")
    tree = ast.parse(source)
    [screen] = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ChatScreen"]
    methods = [node.name for node in screen.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert len(methods) <= 25, methods
    # 350 lines before ruff formatted the tree (one argument a line in long calls): the same code is 380.
    assert len(source.splitlines()) <= 400
