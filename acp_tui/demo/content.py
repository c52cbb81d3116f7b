"""The demo agent's canned texts, sample file, diff and terminal output.

Kept apart from the scripts so the behaviours read as a sequence of protocol steps, and so the
texts can change without touching the flow. Everything here is plain data.
"""

from __future__ import annotations

import difflib
import re
from typing import Final

#: Every behaviour, in the order the welcome text and the slash-command list show them.
BEHAVIOURS: Final[dict[str, str]] = {
    "markdown": "A markdown answer with a heading, a list, inline code and a code block",
    "think": "Think out loud (a streamed thought) before answering",
    "tools": "Tool calls of several kinds: read, edit with a diff, a terminal run, a failure",
    "edit": "Ask permission before editing a file, then apply or skip the edit",
    "ask": "Ask you a question with a form: text, email, choices, numbers, a date, yes/no",
    "link": "Send you to a web page (a pretend login), then say when it is done",
    "plan": "A plan whose entries complete as the tool calls run",
    "notice": "Live notices (warning and info; ACP v2 only)",
    "compact": "A context compaction with a streamed summary (ACP v2 only)",
    "slow": "A 30 second answer, to try cancelling (Ctrl-C)",
    "error": "A turn that ends with an error",
    "unknown": "An update kind no client knows (_demo/sparkle)",
    "everything": "All of the above (except slow and error) in one turn",
    "context": "Say which blocks the prompt carried (text, @-mentioned files, images)",
}

WELCOME: Final[str] = (
    "Welcome to the **acp-tui demo agent**. It runs no model: each word below triggers a scripted "
    "behaviour.\n\n"
    "Try: `markdown`, `think`, `tools`, `edit` (asks permission), `ask` (a form), `link` (a web page), "
    "`plan`, `notice`, `compact`, "
    "`slow` (30 s, try Ctrl-C), `error`, `unknown`, `everything`, or `context` with an @-mentioned file. "
    "Anything else gets an echo."
)


def welcome(installed: str = "") -> str:
    """The welcome text; `installed` (comma-separated short names, from acp-tui's catalogue) adds a line
    saying which real agents could be run instead. Only plain names are shown (it is an environment value)."""
    names = [name for name in installed.split(",") if re.fullmatch(r"[a-z0-9][a-z0-9-]{0,30}", name)]
    if not names:
        return WELCOME
    listed = ", ".join(f"`{name}`" for name in names)
    return f"{WELCOME}\n\nACP agents installed here: {listed}; run one with `acp-tui NAME` (`acp-tui --list-agents` lists more)."


MARKDOWN_ANSWER: Final[str] = """\
## Greeting people, politely

The greeting in `greet.py` works, but it can be **friendlier**:

- use an *f-string* instead of `+` concatenation;
- add the missing comma and an exclamation mark;
- keep the function **pure**, so it is trivial to test.

```python
def greet(name: str) -> str:
    \"\"\"Return a friendly greeting for `name`.\"\"\"
    return f"Hello, {name}!"


assert greet("world") == "Hello, world!"
```

> Tip: run `pytest -q` after the change; all three tests should pass.
"""

THOUGHT: Final[str] = (
    "The user wants to see my reasoning. Let me look at what they asked, decide which file "
    "matters (probably `greet.py`), and check whether a test already covers the greeting before "
    "I answer."
)

THOUGHT_ANSWER: Final[str] = (
    "I thought about it: the greeting lives in `greet.py` and the tests in `tests/test_greet.py`. "
    "Nothing needs to change yet."
)

SAMPLE_RELATIVE_PATH: Final[str] = "src/greet.py"

SAMPLE_OLD: Final[str] = '''\
"""Greets people."""


def greet(name: str) -> str:
    return "Hello " + name


if __name__ == "__main__":
    print(greet("world"))
'''

SAMPLE_NEW: Final[str] = '''\
"""Greets people, politely."""


def greet(name: str) -> str:
    """Return a friendly greeting for `name`."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
'''

#: The line `read` points at (the `def greet` line of `SAMPLE_OLD`).
SAMPLE_FOCUS_LINE: Final[int] = 4

TEST_COMMAND: Final[str] = "python -m pytest -q tests/test_greet.py"

#: Terminal output chunks, with colour as a real pytest run in a terminal would print it.
TERMINAL_OUTPUT: Final[tuple[str, ...]] = (
    "\x1b[1m============================= test session starts ==============================\x1b[0m\r\n",
    "collected 3 items\r\n\r\n",
    "tests/test_greet.py ",
    "\x1b[32m.\x1b[0m",
    "\x1b[32m.\x1b[0m",
    "\x1b[32m.\x1b[0m",
    "\x1b[32m                                                   [100%]\x1b[0m\r\n\r\n",
    "\x1b[32m============================== \x1b[1m3 passed\x1b[0m\x1b[32m in 0.04s ===============================\x1b[0m\r\n",
)

FAILED_FETCH_URL: Final[str] = "https://pypi.invalid/simple/greetings/"
FAILED_FETCH_ERROR: Final[str] = "Error: could not resolve host pypi.invalid (the demo agent never uses the network)"

PLAN_STEPS: Final[tuple[str, ...]] = (
    "Read src/greet.py",
    "Make the greeting friendlier",
    "Run the tests",
)

NOTICE_WARNING_TITLE: Final[str] = "Rate limit approaching"
NOTICE_WARNING_TEXT: Final[str] = (
    "The demo model has used 80% of its (imaginary) hourly budget. Nothing will actually happen."
)
NOTICE_INFO_TITLE: Final[str] = "Demo notice"
NOTICE_INFO_TEXT: Final[str] = "Notices are live-only: they are not part of the session history."

COMPACTION_SUMMARY: Final[tuple[str, ...]] = (
    "## Retained context\n\n",
    "- The user is exploring the acp-tui demo agent.\n",
    "- `src/greet.py` greets with an f-string; the three tests pass.\n",
)

V2_ONLY: Final[str] = (
    "`{feature}` needs ACP v2, and this session negotiated v1, so there is nothing to show here. "
    "Start the demo with a v2 client to see it."
)

ERROR_CODE: Final[int] = -32603
ERROR_MESSAGE: Final[str] = "The demo model overheated (a scripted error, nothing is broken)."

#: `ask`: a form with one field of every kind the elicitation schema has (docs/protocol.md §10.1).
ASK_MESSAGE: Final[str] = "Before I set up the project, a few questions. Nothing leaves this machine."
ASK_SCHEMA: Final[dict[str, object]] = {
    "type": "object",
    "title": "Project settings",
    "description": "Defaults are filled in; change what you like.",
    "properties": {
        "name": {"type": "string", "title": "Project name", "minLength": 1, "maxLength": 40, "default": "greeter"},
        "email": {"type": "string", "title": "Maintainer email", "format": "email"},
        "language": {
            "type": "string",
            "title": "Language",
            "oneOf": [
                {"const": "python", "title": "Python"},
                {"const": "rust", "title": "Rust"},
                {"const": "go", "title": "Go"},
            ],
            "default": "python",
        },
        "licence": {"type": "string", "title": "Licence", "enum": ["MIT", "Apache-2.0", "GPL-3.0-or-later"]},
        "features": {
            "type": "array",
            "title": "Features",
            "items": {
                "anyOf": [
                    {"const": "tests", "title": "Tests"},
                    {"const": "ci", "title": "Continuous integration"},
                    {"const": "docs", "title": "Documentation"},
                ]
            },
            "minItems": 1,
            "default": ["tests"],
        },
        "width": {"type": "integer", "title": "Line width", "minimum": 60, "maximum": 200, "default": 100},
        "coverage": {"type": "number", "title": "Coverage target (%)", "minimum": 0, "maximum": 100},
        "release": {"type": "string", "title": "First release", "format": "date"},
        "branch": {"type": "string", "title": "Branch", "pattern": "^[a-z0-9][a-z0-9/_-]*$", "default": "main"},
        "private": {"type": "boolean", "title": "Private repository", "default": True},
    },
    "required": ["name", "language", "features"],
}
#: `link`: a URL flow; the page does not exist, the demo pretends the login finished.
LINK_MESSAGE: Final[str] = "A pretend login: open the page (there is nothing there) and I carry on when it is done."
LINK_URL: Final[str] = "https://example.com/acp-tui-demo/login?code=DEMO-1234"
#: Said when the client did not advertise the elicitation mode a behaviour needs.
ELICITATION_UNSUPPORTED: Final[str] = (
    "`{feature}` needs a client that advertises {mode} elicitation (`elicitation.{mode}` in `initialize`), "
    "and yours did not, so I will not ask."
)

SLOW_INTRO: Final[str] = "Counting slowly to sixty, one number every half second. Press Ctrl-C to cancel.\n\n"
SLOW_COUNT: Final[int] = 60

SPARKLE: Final[dict[str, object]] = {
    "sparkles": 3,
    "colour": "gold",
    "message": "An update kind from the future: clients show it generically and keep going.",
}


def git_patch(relative_path: str, old: str, new: str) -> str:
    """A `git diff`-style patch turning `old` into `new` for one file."""
    body = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{relative_path}",
        tofile=f"b/{relative_path}",
    )
    return f"diff --git a/{relative_path} b/{relative_path}\n" + "".join(body)


def echo_text(text: str, words: list[str], extra: list[str]) -> str:
    """The answer to a prompt that names no behaviour: the text back, and its words listed."""
    quoted = text.strip() or "(no text)"
    listed = ", ".join(f"`{word}`" for word in words) if words else "none"
    lines = [f"You said: {quoted}", "", f"Words ({len(words)}): {listed}"]
    if extra:
        lines += ["", "Also attached: " + "; ".join(extra)]
    lines += ["", "Try one of: " + ", ".join(f"`{name}`" for name in BEHAVIOURS) + "."]
    return "\n".join(lines)
