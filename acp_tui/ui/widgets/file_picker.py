"""The `@` file picker above the prompt: fuzzy matches from the working directory's index, per keystroke.

Like the slash-command menu it never takes focus: the prompt keeps it and routes Up/Down, Tab/Enter
and Escape here while the picker is open (see `PromptInput` and `prompt_context`). The index
(`acp_tui.context.index`) is built in a background thread the first time the picker opens (or on
`warm()`); typing never waits for it: each keystroke searches the snapshot there is, the border says
"indexing…" meanwhile, and a short timer refreshes the rows as more of the tree arrives. Matching
runs in the UI thread because it is fast (see `acp_tui.context.matcher` and `bench/mention_speed.py`).

File names are hostile data: every row is built character by character, unprintable characters shown
as escapes (`\\n`, `\\x1b`, `\\u202e`) in a muted style, never as markup; very long paths are
shortened in the middle so the last component stays visible.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from textual import events
from textual.content import Content, Span
from textual.timer import Timer
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.context.index import Corpus, FileIndex
from acp_tui.context.matcher import Match, Matcher
from acp_tui.context.mentions import escape_char

__all__ = ["FilePicker", "picker_row", "REFRESH_AFTER"]

#: An index older than this (seconds) is rebuilt in the background when the picker opens.
REFRESH_AFTER = 30.0
#: How often the rows follow a growing index while the picker is open.
POLL_INTERVAL = 0.05
#: Rows listed (about ten show at once; the rest scroll).
PICKER_LIMIT = 20
#: Rows wider than this many characters are shortened in the middle (the widget's width when known).
MAX_ROW = 200


def _css() -> str:
    """The picker's styles, kept in `file_picker.tcss` beside this module."""
    try:
        return (Path(__file__).with_name("file_picker.tcss")).read_text(encoding="utf-8")
    except OSError:
        return ""


def picker_row(match: Match, width: int = MAX_ROW, *, selected: bool = False) -> Content:
    """One row: the path, the characters the query matched in bold accent, the last component in the
    text colour (a directory's in the primary colour), the rest muted; unprintable characters as muted
    escapes; middle-shortened past `width`. The `selected` row is drawn in the cursor's own colours (on
    its background the accent and muted colours read at 1.2:1), its matched characters bold and underlined."""
    path = match.path
    base = path.rfind("/", 0, len(path) - 1) + 1
    name_style = "$text-primary" if match.is_dir else "$text"
    muted, hit = "$text-muted", "bold $text-accent"
    if selected:
        name_style, muted, hit = "bold", "", "bold underline"
    if path.isprintable():
        spans = [Span(0, base, muted), Span(base, len(path), name_style)]
        spans += [Span(offset, offset + 1, hit) for offset in match.positions]
        content = Content(path, spans)
        base_cells = len(path) - base
    else:
        hits = set(match.positions)
        parts: list[tuple[str, str]] = []
        for offset, char in enumerate(path):
            shown = escape_char(char)
            if shown != char and char not in '\\"':
                style = "italic" if selected else "$text-warning italic"
            elif offset in hits:
                style = hit
            else:
                style = name_style if offset >= base else muted
            parts.append((shown, style))
        content = Content.assemble(*parts)
        base_cells = len(content.plain) - _cells(parts, base)
    total = len(content.plain)
    if total > width > 8:
        tail = max(width // 2, min(width - 4, base_cells))
        head = max(1, width - 1 - tail)
        content = Content.assemble(content[:head], ("…", muted), content[total - tail :])
    return content


def _cells(parts: list[tuple[str, str]], upto: int) -> int:
    """Characters shown for the first `upto` path characters."""
    return sum(len(shown) for shown, _ in parts[:upto])


class FilePicker(OptionList):
    """A small, unfocusable list of the working directory's entries matching the `@` word in the prompt."""

    can_focus = False
    DEFAULT_CSS = _css()

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        id: str | None = None,
        index: FileIndex | None = None,
        extra_roots: Sequence[str | os.PathLike[str]] = (),
        limit: int = PICKER_LIMIT,
    ) -> None:
        super().__init__(id=id, markup=False)
        #: the session's extra folders, indexed after the root (their rows start with the folder, `~/…`)
        self.extra_roots = tuple(extra_roots)
        if index is None and root is not None:
            index = FileIndex(root, extra_roots=self.extra_roots)
        self.index = index
        self.limit = limit
        self.matcher = Matcher()
        self._query: str | None = None
        self._shown: list[Match] = []
        self._corpus_key: tuple[int, int] | None = None
        self._poll: Timer | None = None
        self._row_width = MAX_ROW
        self._drawn_selected: int | None = None  # the row drawn in the cursor's colours
        #: called with the chosen match when a row is clicked (the prompt completes it)
        self.on_choose: Callable[[Match], None] | None = None

    # -- state -----------------------------------------------------------------------------------

    @property
    def root(self) -> str | None:
        """The directory the picker indexes (absolute), or None when it has none."""
        return self.index.root if self.index is not None else None

    def set_root(self, root: str | os.PathLike[str]) -> None:
        """Index another directory (e.g. the session moved); the old walk is asked to stop."""
        if self.index is not None and self.index.root == os.path.abspath(os.fspath(root)):
            return
        if self.index is not None:
            self.index.stop()
        self.index = FileIndex(root, extra_roots=self.extra_roots)
        self.matcher = Matcher()
        if self.is_open:
            self.index.start()
            self._refresh_rows()

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def current_query(self) -> str | None:
        """The query shown (the text after `@`), or None when closed."""
        return self._query if self.is_open else None

    @property
    def shown(self) -> list[Match]:
        """The matches listed now, best first."""
        return list(self._shown) if self.is_open else []

    @property
    def highlighted_match(self) -> Match | None:
        index = self.highlighted
        if not self.is_open or index is None or not 0 <= index < len(self._shown):
            return None
        return self._shown[index]

    def warm(self) -> None:
        """Start indexing now (e.g. once the session is up) so the first `@` finds a complete index."""
        if self.index is not None:
            self.index.start()

    # -- driven by the prompt --------------------------------------------------------------------

    def show(self, query: str) -> None:
        """Open (or refilter) for `query`, the text typed after `@`."""
        index = self.index
        if index is None:
            self.close()
            return
        opening = not self.is_open
        if opening:
            if index.built_at is None:
                index.start()
            elif not index.building and time.monotonic() - index.built_at > REFRESH_AFTER:
                index.refresh()  # stale: rebuilt in the background, the old corpus serves meanwhile
        same = query == self._query
        self._query = query
        self.add_class("-open")
        self._refresh_rows(keep=self.highlighted_match if same else None)
        self._follow_index()

    def close(self) -> None:
        """Close and forget the query (the prompt's `@` word ended)."""
        self._query = None
        if self._shown:
            self._shown = []
            self.clear_options()
        self.remove_class("-open")
        self._stop_polling()

    def move(self, delta: int) -> None:
        """Move the highlight, wrapping around the ends."""
        if not self._shown:
            return
        current = self.highlighted if self.highlighted is not None else (-1 if delta > 0 else 0)
        self.highlighted = (current + delta) % len(self._shown)

    # -- rows --------------------------------------------------------------------------------------

    def _fit_width(self) -> int:
        """The row width the picker has now (before its first layout it has none yet: `on_resize` redraws)."""
        width = max(20, self.scrollable_content_region.width - 1) if self.is_mounted else MAX_ROW
        return min(width, MAX_ROW)

    def on_resize(self, event: events.Resize) -> None:
        """Laid out on opening (rows drawn before were cut to the width it had hidden), or the terminal resized:
        draw the rows at the width there is now."""
        if self.is_open and self._shown and self._fit_width() != self._row_width:
            self._refresh_rows(keep=self.highlighted_match)

    def _corpus(self) -> Corpus:
        return self.index.corpus if self.index is not None else Corpus.empty()

    def _refresh_rows(self, keep: Match | None = None) -> None:
        corpus = self._corpus()
        self._corpus_key = (corpus.generation, corpus.size)
        matches = self.matcher.search(corpus, self._query or "", self.limit)
        self._shown = matches
        self._row_width = self._fit_width()
        if matches:
            paths = [match.path for match in matches]
            chosen = paths.index(keep.path) if keep is not None and keep.path in paths else 0
            self.set_options(
                Option(picker_row(match, self._row_width, selected=i == chosen)) for i, match in enumerate(matches)
            )
            self._drawn_selected = chosen
            self.highlighted = chosen
        else:
            self.set_options([Option(self._empty_text(corpus), disabled=True)])
        self.border_subtitle = self._status_text(corpus)

    def _empty_text(self, corpus: Corpus) -> Content:
        if not corpus.complete:
            return Content.styled("indexing…", "italic $text-muted")
        return Content.styled("no matching files", "italic $text-muted")

    @staticmethod
    def _status_text(corpus: Corpus) -> str:
        if corpus.status in ("building", "idle"):
            return f"indexing… {corpus.size:,}"
        if corpus.status in ("truncated", "failed"):
            return corpus.reason or "partial index"
        return ""

    def _follow_index(self) -> None:
        """While open and the index is still being built, refresh the rows as it grows."""
        building = self.index is not None and (self.index.building or not self._corpus().complete)
        if building and self._poll is None and self.is_mounted:
            self._poll = self.set_interval(POLL_INTERVAL, self._poll_index)
        elif not building:
            self._stop_polling()

    def _poll_index(self) -> None:
        if not self.is_open:
            self._stop_polling()
            return
        corpus = self._corpus()
        if (corpus.generation, corpus.size) != self._corpus_key:
            self._refresh_rows(keep=self.highlighted_match)
        if self.index is None or (not self.index.building and corpus.complete):
            self._stop_polling()

    def _stop_polling(self) -> None:
        if self._poll is not None:
            self._poll.stop()
            self._poll = None

    def watch_highlighted(self, highlighted: int | None) -> None:
        """The cursor moved: the row it left and the row it reached are drawn again in their colours."""
        super().watch_highlighted(highlighted)
        drawn, self._drawn_selected = self._drawn_selected, highlighted
        for index, selected in ((drawn, False), (highlighted, True)):
            if (
                index is None
                or not 0 <= index < min(len(self._shown), self.option_count)
                or (index == highlighted and not selected)
            ):
                continue
            self.replace_option_prompt_at_index(
                index, picker_row(self._shown[index], self._row_width, selected=selected)
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on a row: the prompt completes it."""
        event.stop()
        if 0 <= event.option_index < len(self._shown) and self.on_choose is not None:
            self.on_choose(self._shown[event.option_index])

    def on_unmount(self) -> None:
        self._stop_polling()
        if self.index is not None:
            self.index.stop()
