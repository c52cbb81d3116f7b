"""The tab bar: one line on top while two or more conversations are open (acp_tui/ui/tabs).

`1 ● demo   2 ◐ Fix the tests •   3 ⚠ gemini` — each tab's number (Alt+number shows it), the state glyph
of the README's table (`◐` working, `⚠` needs you, `✗` failed, `●` idle), its title (the session's title,
else the start of its first prompt, else the agent's name: `Tab.title` in acp_tui/ui/tabs/host.py) and a
dot when output came while it was hidden. The shown tab is highlighted. A narrow bar shortens the titles,
then drops them, never a number or a glyph; more tabs than fit show a window around the shown one with
`‹` / `›` saying more lie beyond. Titles are the agent's text: data, sanitised, never markup. A click on
a tab asks to show it (`TabBar.Chosen`).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, assert_never

import msgspec
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from acp_tui.sanitize import plain
from acp_tui.ui.themes.markdown_styles import rich_colour_name

__all__ = ["GLYPH", "Span", "TabBar", "TabLabel", "TabState", "bar_text", "tab_state", "tab_title"]

TabState: TypeAlias = Literal["working", "waiting", "failed", "idle"]

#: One glyph per state, as the README's glyph table has them.
GLYPH: Final[dict[TabState, str]] = {"working": "◐", "waiting": "⚠", "failed": "✗", "idle": "●"}
#: Marks a tab whose output came while it was hidden.
UNSEEN: Final = "•"
#: Cells between two tabs.
GAP: Final = 1
#: A title is never cut shorter than this; below it, titles go and numbers and glyphs stay.
MIN_TITLE: Final = 3


def tab_state(*, waiting: bool, working: bool, failed: bool) -> TabState:
    """What a tab's glyph says: needs you first (it is why you would switch), then working, failed, idle."""
    if waiting:
        return "waiting"
    if working:
        return "working"
    if failed:
        return "failed"
    return "idle"


class Span(msgspec.Struct, frozen=True):
    """The cells `start`..`end` (exclusive) of the bar show tab `number`."""

    start: int
    end: int
    number: int


class TabLabel(msgspec.Struct, frozen=True):
    """What the bar shows of one tab; `title` may be the agent's text (sanitised when drawn)."""

    number: int
    title: str
    state: TabState
    unseen: bool = False
    current: bool = False


#: Characters of a title read at all: the bar shows a few dozen, and an agent's title has no length limit.
TITLE_READ: Final = 200


def tab_title(text: str) -> str:
    """A tab's title as one line of safe text, whatever the agent sent (a megabyte title costs what 200
    characters do)."""
    return " ".join(plain(text[:TITLE_READ]).split()) or "…"


def _cut(text: str, width: int) -> str:
    if cell_len(text) <= width:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > width - 1:
            break
        out += char
    return out + "…"


def _cells(label: TabLabel, title_width: int | None) -> str:
    """` 2 ◐ Fix the tests • ` with the title cut to `title_width` (0: no title; None: whole)."""
    head = f" {label.number} {GLYPH[label.state]}"
    title = tab_title(label.title)
    if title_width is None:
        head += f" {title}"
    elif title_width > 0:
        head += f" {_cut(title, title_width)}"
    return head + (f" {UNSEEN} " if label.unseen else " ")


def _layout(labels: tuple[TabLabel, ...], width: int) -> tuple[list[str], int, int]:
    """The tabs' texts and which of them fit (`first`, `last` exclusive): titles cut evenly, then dropped."""
    whole = [_cells(label, None) for label in labels]
    if sum(cell_len(cell) for cell in whole) + GAP * (len(labels) - 1) <= width:
        return whole, 0, len(labels)
    bare = [_cells(label, 0) for label in labels]
    spare = width - sum(cell_len(cell) for cell in bare) - GAP * (len(labels) - 1)
    cap = _title_cap([cell_len(tab_title(label.title)) for label in labels], spare - len(labels))  # a space each
    if cap >= MIN_TITLE:
        return [_cells(label, cap) for label in labels], 0, len(labels)
    if spare >= 0:
        return bare, 0, len(labels)
    # Not even every number and glyph fits: a window of bare tabs around the shown one, `‹` `›` beyond it.
    current = next((index for index, label in enumerate(labels) if label.current), 0)
    first = last = current
    used = cell_len(bare[current])
    while True:
        grew = False
        for index in (last + 1, first - 1):
            if 0 <= index < len(labels) and not first <= index <= last:
                cost = cell_len(bare[index]) + GAP
                if used + cost + 2 * 2 <= width:  # room kept for both markers
                    used += cost
                    first, last = min(first, index), max(last, index)
                    grew = True
        if not grew:
            break
    return bare, first, last + 1


def _title_cap(lengths: list[int], room: int) -> int:
    """The longest a title may be so that all of them fit in `room` cells: short titles stay whole and
    leave their share to the long ones (0 when not even the shortest cut fits)."""
    low, high = 0, max(lengths, default=0)
    while low < high:
        middle = (low + high + 1) // 2
        if sum(min(length, middle) for length in lengths) <= room:
            low = middle
        else:
            high = middle - 1
    return low


def bar_text(labels: tuple[TabLabel, ...], width: int, styles: dict[str, str]) -> tuple[Text, list[Span]]:
    """The bar's line for `width` cells, and where each tab drawn sits on it (for clicks); `styles` holds the
    theme's colour names by variable."""
    cells, first, last = _layout(labels, width)
    spans: list[Span] = []
    line = Text(no_wrap=True, overflow="crop", end="")
    # The markers take the bar's own colour ($text-muted in its CSS): that variable is `auto 60%`, which is
    # no colour Rich can parse, and an unparseable style ends the app the first time the bar is drawn.
    if first > 0:
        line.append("‹ ")
    for index in range(first, last):
        label, text = labels[index], cells[index]
        if index > first:
            line.append(" " * GAP)
        spans.append(Span(line.cell_len, line.cell_len + cell_len(text), label.number))
        base = _current_style(styles) if label.current else Style()
        glyph_at = text.index(GLYPH[label.state])
        line.append(text[:glyph_at], style=base)
        line.append(GLYPH[label.state], style=base + Style.parse(_glyph_colour(label.state, styles)))
        rest = text[glyph_at + 1 :]
        if label.unseen:
            dot_at = rest.rindex(UNSEEN)
            line.append(rest[:dot_at], style=base)
            line.append(UNSEEN, style=base + Style.parse(styles.get("accent", "cyan")))
            line.append(rest[dot_at + 1 :], style=base)
        else:
            line.append(rest, style=base)
    if last < len(labels):
        line.append(" ›")
    return line, spans


def _current_style(styles: dict[str, str]) -> Style:
    """The shown tab: bold, on the conversation's own background (it reads as the tab the screen hangs from);
    reversed where the palette is not known."""
    background = styles.get("background")
    if background is None:
        return Style(bold=True, reverse=True)
    return Style(bold=True, color=styles.get("foreground"), bgcolor=background)


def _glyph_colour(state: TabState, styles: dict[str, str]) -> str:
    match state:
        case "working":
            return styles.get("primary", "blue")
        case "waiting":
            return f"bold {styles.get('warning', 'yellow')}"
        case "failed":
            return styles.get("error", "red")
        case "idle":
            return styles.get("success", "green")
        case _:
            assert_never(state)


class TabBar(Widget):
    """The tabs, one line on top; hidden while there is only one."""

    DEFAULT_CSS = """
    TabBar {
        height: 1;
        background: $panel;
        color: $text-muted;
        display: none;
    }
    TabBar.-several {
        display: block;
    }
    """

    class Chosen(Message):
        """The user clicked tab `number` (1-based)."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: tuple[TabLabel, ...] = ()
        self._spans: list[Span] = []  # where each tab drawn sits
        self._displayed = False  # what the last style update said: drawn (two tabs or more) or not

    def show_tabs(self, labels: tuple[TabLabel, ...]) -> None:
        """Draw these tabs (nothing at all for fewer than two)."""
        if labels == self.labels:
            return
        self.labels = labels
        self.set_class(len(labels) >= 2, "-several")
        self.refresh()

    def notify_style_update(self) -> None:
        """Shown or gone: lay the screen out again now. Under a dialog (a modal screen) a chat screen is drawn
        but Textual lays out only the top screen, so a bar that had to appear (a second tab opened while the
        tab's question was open) stayed missing, and one that had to go stayed, until the dialog closed."""
        super().notify_style_update()
        if self.display == self._displayed:
            return
        self._displayed = self.display
        if self.is_attached and self.app.screen is not self.screen:
            self.screen._refresh_layout()  # Textual has no public way to lay out a screen under another
            self.app.screen.refresh()

    def render(self) -> Text:
        variables = self.app.theme_variables if self.is_mounted else {}
        styles = {name: rich_colour_name(value) for name, value in variables.items()}
        text, self._spans = bar_text(self.labels, max(self.size.width, 1), styles)
        return text

    def on_click(self, event: events.Click) -> None:
        for span in self._spans:
            if span.start <= event.x < span.end:
                self.post_message(self.Chosen(span.number))
                return
