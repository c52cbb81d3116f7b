"""The keys table: one place for what each key does, shown by F1 (the help screen).

README's "Keys" table lists the same keys in the same order, with more words; a test holds the two
together (tests/app/test_ui_words.py), so a key added here and not there (or the other way) fails.
"""

from __future__ import annotations

from typing import Final

__all__ = ["INSPECTOR_KEY", "KEYS"]

#: Opens the protocol inspector (the app's binding) and closes it; not F6 or F7: the prompt (a TextArea) selects with
#: them. Here, not in the inspector, so the app binds it without importing the inspector at start-up.
INSPECTOR_KEY: Final = "f8"

#: (key, what it does), in README's order.
KEYS: Final[tuple[tuple[str, str], ...]] = (
    ("F1", "this list of keys"),
    ("Enter", "send the prompt (queued while the agent works)"),
    ("Ctrl+Enter, Alt+Enter", "while the agent works: steer the prompt into its turn (agents that offer it)"),
    ("Shift+Enter, Ctrl+J", "new line in the prompt"),
    ("Up / Down", "earlier prompts (on the first / last line of the prompt)"),
    ("`/`", "at the start of the prompt: the agent's slash commands"),
    ("`@`", "at the start of a word: mention a file or folder"),
    ("Ctrl+C", "while the agent works: cancel (twice: stop it); idle: copy, clear, or twice to quit"),
    ("Ctrl+Q", "quit"),
    ("End / Ctrl+End", "jump to the bottom and follow new output; Ctrl+Home: the oldest entry"),
    ("PageUp / PageDown", "scroll the conversation"),
    ("F2", "the agent's stderr (Escape closes it)"),
    ("F3", "protocol problems"),
    ("F5", "notices from the agent"),
    ("F4", "session settings (mode, model, …)"),
    ("F9", "the jobs tray, while the agent runs work in the background"),
    ("F8", "the protocol inspector: every JSON-RPC frame"),
    ("Shift+Tab", "in the prompt: the next mode (one that bypasses permissions asks first)"),
    ("Tab", "in the prompt: the newest card (Tab again: back to the prompt)"),
    ("Ctrl+R", "restart a stopped agent (a running one: press twice)"),
    ("Ctrl+O", "the session list"),
    ("Ctrl+N", "a new session with the same agent"),
    ("Ctrl+T", "a new tab: the same agent and folder, a new session"),
    ("Alt+1 … Alt+9, Ctrl+PageUp / Ctrl+PageDown", "show tab N; the previous / next tab"),
    ("Ctrl+W", "close the tab (asks while its agent works); with one tab: delete a word"),
    ("Enter on a subagent lane", "open or close it"),
    ("Enter on a tool card", "expand or collapse it (i raw input/output, s save, Ctrl+X cancel it)"),
    ("Enter on a folded diff", "show the rest of it"),
    ("Escape, Enter, or typing, away from the prompt", "back to the prompt, with the typed key"),
    ("`s` on a long message", "save the whole text"),
    ("Ctrl+P", "the command palette"),
)
