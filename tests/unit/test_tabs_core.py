"""The tabs' pure parts: the bar's line (acp_tui/ui/widgets/tab_bar.py), a tab's state glyph, a new tab's
launch and log file (acp_tui/ui/tabs/host.py), and how a screen's dialogs wait for its tab
(acp_tui/ui/chat/presence.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.style import Style
from textual import events

from acp_tui.launch import Launch
from acp_tui.ui.chat.presence import Presence
from acp_tui.ui.tabs.alt_digits import read_alt_digits
from acp_tui.ui.tabs.host import fresh_launch, tab_log
from acp_tui.ui.widgets.tab_bar import GLYPH, TabLabel, bar_text, tab_state

LABELS = (
    TabLabel(1, "demo", "idle", current=True),
    TabLabel(2, "Fix the failing tests in the parser module, all of them", "working", unseen=True),
    TabLabel(3, "gemini", "waiting"),
    TabLabel(4, "claude", "failed"),
)


def plain(labels: tuple[TabLabel, ...], width: int) -> str:
    return bar_text(labels, width, {})[0].plain


def test_a_wide_bar_shows_every_title_whole_with_number_glyph_and_the_unseen_dot() -> None:
    line = plain(LABELS, 160)
    assert line.startswith(" 1 ● demo ")
    assert " 2 ◐ Fix the failing tests in the parser module, all of them • " in line
    assert " 3 ⚠ gemini " in line and " 4 ✗ claude " in line


@pytest.mark.parametrize("width", [80, 60, 40, 30])
def test_a_narrow_bar_shortens_titles_but_never_drops_a_number_or_a_glyph(width: int) -> None:
    line = plain(LABELS, width)
    assert cell_len(line) <= width
    for label in LABELS:
        assert f" {label.number} {GLYPH[label.state]}" in line
    assert "•" in line  # the unseen dot stays too


def test_at_80_columns_the_long_title_is_cut_with_an_ellipsis() -> None:
    line = plain(LABELS, 80)
    assert "Fix the failing" in line and "…" in line and "all of them" not in line


def test_more_tabs_than_fit_show_a_window_around_the_shown_one() -> None:
    many = tuple(TabLabel(n, f"tab {n}", "idle", current=n == 15) for n in range(1, 31))
    line = plain(many, 80)
    assert cell_len(line) <= 80
    assert " 15 ● " in line
    assert line.startswith("‹") and line.rstrip().endswith("›")
    assert " 1 ● " not in line and " 30 ● " not in line


def test_titles_are_data_never_markup_or_escape_sequences() -> None:
    hostile = (
        TabLabel(1, "[bold red]x[/]\x1b]2;pwned\x07\nsecond line", "idle", current=True),
        TabLabel(2, "b", "idle"),
    )
    text, _ = bar_text(hostile, 120, {})
    assert "[bold red]x[/]" in text.plain
    assert "\x1b" not in text.plain and "\x07" not in text.plain and "\n" not in text.plain


def test_every_tab_drawn_has_the_cells_a_click_finds_it_by() -> None:
    text, spans = bar_text(LABELS, 80, {})
    assert [span.number for span in spans] == [1, 2, 3, 4]
    for span, label in zip(spans, LABELS, strict=True):
        assert text.plain[span.start : span.end].startswith(f" {label.number} {GLYPH[label.state]}")
    assert all(a.end < b.start for a, b in zip(spans, spans[1:], strict=False))


def test_the_shown_tab_is_highlighted() -> None:
    text, spans = bar_text(LABELS, 160, {})

    def reversed_at(offset: int) -> bool:
        return any(
            span.start <= offset < span.end and isinstance(span.style, Style) and bool(span.style.reverse)
            for span in text.spans
        )

    assert reversed_at(spans[0].start) and reversed_at(spans[0].end - 1)
    assert not reversed_at(spans[1].start)
    themed, spans = bar_text(LABELS, 160, {"background": "#101010", "foreground": "#eeeeee"})
    on_background = [
        span
        for span in themed.spans
        if isinstance(span.style, Style) and span.style.bgcolor is not None and span.style.bold
    ]
    assert on_background and all(span.start >= spans[0].start and span.end <= spans[0].end for span in on_background)


def test_a_tab_says_it_needs_you_before_it_says_it_works() -> None:
    assert tab_state(waiting=True, working=True, failed=False) == "waiting"
    assert tab_state(waiting=False, working=True, failed=True) == "working"
    assert tab_state(waiting=False, working=False, failed=True) == "failed"
    assert tab_state(waiting=False, working=False, failed=False) == "idle"


def launch(tmp_path: Path, log: Path | None = None) -> Launch:
    return Launch(
        agent_argv=("agent",),
        agent_name="agent",
        env={},
        cwd=tmp_path,
        protocol="auto",
        theme=None,
        log_path=log,
        init_timeout=5,
        warnings=("said once",),
        resume_id="abc",
        continue_last=True,
        pick_session=True,
    )


def test_a_new_tab_is_a_new_session_of_the_same_agent_in_the_same_folder(tmp_path: Path) -> None:
    base = launch(tmp_path)
    new = fresh_launch(base, 2)
    assert (new.agent_argv, new.cwd, new.env) == (base.agent_argv, base.cwd, base.env)
    assert new.resume_id is None and not new.continue_last and not new.pick_session
    assert new.warnings == ()


def test_each_tab_logs_its_own_connection(tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    assert tab_log(log, 1) == log
    assert tab_log(log, 2) == tmp_path / "wire.tab2.jsonl"
    assert tab_log(None, 3) is None
    assert fresh_launch(launch(tmp_path, log), 3).log_path == tmp_path / "wire.tab3.jsonl"
    assert replace(launch(tmp_path, log)).log_path == log


def test_a_dialog_of_a_shown_screen_opens_at_once() -> None:
    presence, opened = Presence(), []
    ticket = presence.when_shown(lambda: opened.append("a"))
    assert opened == ["a"] and presence.waiting == 1
    ticket.done()
    assert presence.waiting == 0


def test_a_hidden_screens_dialogs_wait_for_it_and_open_in_order() -> None:
    presence, opened, told = Presence(), [], []
    presence.changed = lambda: told.append(presence.waiting)
    presence.hide()
    presence.when_shown(lambda: opened.append("first"))
    presence.when_shown(lambda: opened.append("second"))
    assert opened == [] and presence.waiting == 2 and told[-1] == 2
    presence.show()
    assert opened == ["first", "second"]


def test_a_question_withdrawn_while_hidden_never_opens() -> None:
    presence, opened = Presence(), []
    presence.hide()
    ticket = presence.when_shown(lambda: opened.append("withdrawn"))
    ticket.done()
    assert presence.waiting == 0
    presence.show()
    assert opened == []


def test_output_while_hidden_is_unseen_until_shown() -> None:
    presence = Presence()
    presence.activity(True)
    assert not presence.unseen  # shown: seen at once
    presence.hide()
    presence.activity(False)
    assert not presence.unseen  # a state change is not output
    presence.activity(True)
    assert presence.unseen
    presence.show()
    assert not presence.unseen


def test_esc_digit_is_alt_digit_and_the_characters_stay_characters() -> None:
    from textual._xterm_parser import XTermParser

    read_alt_digits()
    read_alt_digits()  # idempotent
    keys = [
        (event.key, event.character) for event in XTermParser().feed("\x1b1\x1b9£¡") if isinstance(event, events.Key)
    ]
    assert keys == [("alt+1", None), ("alt+9", None), ("pound_sign", "£"), ("inverted_exclamation_mark", "¡")]


def test_a_megabyte_title_costs_what_a_short_one_does() -> None:
    from acp_tui.ui.widgets.tab_bar import TITLE_READ, tab_title

    huge = "x" * 5_000_000 + "\x1b[2J"
    assert tab_title(huge) == "x" * TITLE_READ
    line = plain((TabLabel(1, huge, "working", current=True), TabLabel(2, "b", "idle")), 80)
    assert cell_len(line) <= 80 and " 1 ◐ x" in line
