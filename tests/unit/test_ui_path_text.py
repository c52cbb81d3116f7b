"""Paths from the agent as the user reads them."""

from __future__ import annotations

import pytest

from acp_tui.path_text import display_path


def test_display_path_shows_home_as_tilde_and_stays_sanitized(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    assert display_path("/home/me/src/app.py") == "~/src/app.py"
    assert display_path("/home/me") == "~"
    assert display_path("/home/meow/x") == "/home/meow/x"
    assert display_path("/etc/\x1b]0;pwned\x07passwd") == "/etc/passwd"
