"""The palette's entry for each open tab (acp_tui/ui/tabs/commands.py): its help names the key that shows the
tab, and only a key that exists — Alt+1…Alt+9; tab 10 and on are reached by the palette or Ctrl+PageUp/Down."""

from __future__ import annotations

from acp_tui.ui.tabs.commands import tab_entry


def test_tabs_one_to_nine_name_their_alt_key() -> None:
    for number in range(1, 10):
        entry = tab_entry(number, "demo")
        assert entry.name == f"Tab {number}: demo"
        assert entry.action == f"app.show_tab({number})"
        assert entry.help.startswith(f"Alt+{number}: ")


def test_a_tab_beyond_nine_names_no_key_that_does_not_exist() -> None:
    entry = tab_entry(12, "demo")
    assert entry.action == "app.show_tab(12)"
    assert "Alt+" not in entry.help and "Ctrl+PageDown" in entry.help


def test_a_title_is_one_line_of_plain_text() -> None:
    assert tab_entry(2, "Fix\n the\x1b[31m tests").name == "Tab 2: Fix the tests"
