"""What the agent's first answer needs, prepared off the main thread once the session is up.

The first screen imports neither Markdown nor Pygments (issue 27's start-up; tests/app/test_startup_imports.py),
and the first answer needs both: importing them is ~35 ms, and Pygments builds a lexer's tables and a theme on
first use (`markdown_stream.warm_up`, ~45 ms). A daemon thread does both once the session is ready: after
start-up, so it takes nothing from it, and long before a person has typed a prompt and the agent has answered.
"""

from __future__ import annotations

import threading

from textual.dom import DOMNode

__all__ = ["warm_up_markdown"]


def warm_up_markdown(node: DOMNode) -> threading.Thread:
    """Import and warm Markdown and Pygments for the code theme of `node`'s app, in a daemon thread."""
    theme = node.app.current_theme
    thread = threading.Thread(target=_warm_up, args=(theme.dark, theme.ansi), name="markdown-import", daemon=True)
    thread.start()
    return thread


def _warm_up(dark: bool, ansi: bool) -> None:
    from acp_tui.ui.widgets.markdown_stream import code_theme_for, warm_up_once

    warm_up_once(code_theme_for(dark, ansi))  # here, in this thread; once per process and theme
