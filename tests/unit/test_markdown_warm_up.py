"""The markdown warm-up: Pygments' first code block is built off screen, once per process and theme."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO

CHECK = """
import sys
from acp_tui.ui.widgets import markdown_stream
from pygments.lexers.javascript import TypeScriptLexer
from pygments.lexers.python import PythonLexer
assert "_tokens" not in PythonLexer.__dict__, "a lexer's tables were built before the warm-up"
assert markdown_stream.warm_up_once("xcode") is True
assert "_tokens" in PythonLexer.__dict__ and "_tokens" in TypeScriptLexer.__dict__
assert markdown_stream.warm_up_once("xcode") is False  # once per process and theme
assert "pygments.styles.xcode" in sys.modules
"""


def test_the_warm_up_builds_the_commonest_lexers_and_the_theme_once() -> None:
    """A fresh interpreter, so nothing else has built the lexers' tables yet."""
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


ONE_THREAD = """
import sys, threading
from textual.app import App
from acp_tui.ui.chat import warm_up
from pygments.lexers.python import PythonLexer

started = []
real_start = threading.Thread.start
def start(self):
    started.append(self.name)
    real_start(self)
threading.Thread.start = start

class Themed:
    app = App()

thread = warm_up.warm_up_markdown(Themed())
thread.join(60)
assert not thread.is_alive()
assert started == ["markdown-import"], started  # imports and warms in that one thread, starting no other
assert "_tokens" in PythonLexer.__dict__
from acp_tui.ui.widgets import markdown_stream
assert markdown_stream.warm_up_once(markdown_stream.code_theme_for(True, False)) is False  # done already
"""


def test_the_session_s_warm_up_imports_and_warms_in_one_thread() -> None:
    done = subprocess.run([sys.executable, "-c", ONE_THREAD], cwd=REPO, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
