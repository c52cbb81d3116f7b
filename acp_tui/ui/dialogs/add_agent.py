"""Add an agent… (the command palette): every agent acp-tui knows, as `acp-tui agents` lists them, to install one
from the ACP registry and open it in a new tab (issue 41).

The list (acp_tui/registry/roster.py) is config.toml's agents, the installed registry agents, the registry's
others, its unusable entries and the well-known agents; the local ones show at once, the registry's once a child
process has read the index (`acp_tui.registry.worker index`: the UI never waits for the network). Typing filters
it (the letters in order, fzf style; the id first, then the name, then the description); Up, Down, PageUp and
PageDown move the highlighted row, whose details show beside the list. Enter on a registry agent not installed
installs it in another child process (`worker install`), its progress on one line, the dialog still answering;
once installed, Enter opens it in a new tab. Enter on an agent that runs already opens it at once. Escape closes
the dialog; during an install it stops the install first (one SIGTERM, which leaves nothing half-installed).

The index's words (ids, names, descriptions) are the agent's: shown literally, controls written as escapes
(`escape_controls`), never markup, each cut to a bound. The keys the list answers are read in the filter field's
own queue (`FilterField._on_key`), so they keep their place among the letters typed around them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from collections import deque
from collections.abc import Callable, Sequence
from typing import ClassVar, Final, Protocol

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.config import Settings, load_settings
from acp_tui.context.matcher import match_positions, name_tier
from acp_tui.launch import Launch, LaunchProblem
from acp_tui.paths import config_file
from acp_tui.registry.manifest import installed_agents
from acp_tui.registry.roster import AgentRow, roster
from acp_tui.registry.worker import Done, Failed, IndexReport, Line, Report, Step, Transfer, command, decode_report
from acp_tui.sanitize import escape_controls, plain
from acp_tui.sizes import human_size
from acp_tui.ui.dialogs.guarded import key_hints

__all__ = ["MARK", "MAX_SHOWN", "AddAgentScreen", "ranked_rows"]

MARK: Final = "▌ "
#: rows the list shows at once (the registry may list thousands): the rest are counted, typing narrows them
MAX_SHOWN: Final = 300
#: lines of a description the details show, and characters of each
DESCRIPTION_LINES: Final = 40
LINE_CHARS: Final = 500
#: what the tag beside a row says it is
TAGS: Final = {
    "named": "config.toml",
    "installed": "installed",
    "available": "registry",
    "unusable": "unusable",
    "well-known": "well-known",
}
BROWSE_HINTS: Final = [("⏎", "install / open"), ("↑↓", "move"), ("esc", "close")]
INSTALL_HINTS: Final = [("esc", "stop the install and close")]
#: a child's line longer than this is not a report (ours are bounded far below)
_LINE_LIMIT = 16 * 1024 * 1024


def _shown(text: str, limit: int) -> str:
    """Agent text as one literal line: controls as escapes, cut."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return escape_controls(cut)


def _label(row: AgentRow) -> str:
    version = f"  {escape_controls(row.version[:40])}" if row.version else ""
    return f"{_shown(row.key, 60)}  {_shown(' '.join(row.name.split()), 60)}{version}"


def ranked_rows(rows: Sequence[AgentRow], query: str) -> list[tuple[int, tuple[int, ...]]]:
    """The rows matching `query` (its letters in order, case-insensitive), best first, each with the offsets of its
    label to underline: the id starts with it, contains it, holds its letters, the label holds them, then the
    description contains it. Ties keep the list's order. An empty query: all of them."""
    q = " ".join(query.split()).lower()[:200]
    if not q:
        return [(index, ()) for index in range(len(rows))]
    found: list[tuple[int, int, tuple[int, ...]]] = []
    for index, row in enumerate(rows):
        label = _label(row)
        tier = name_tier(q, row.key.lower(), label.lower())
        if tier is None:
            if q not in row.description[:2000].lower():
                continue
            tier = 4
        found.append((tier, index, match_positions(label, 0, q) if tier < 4 else ()))
    found.sort()
    return [(index, positions) for _tier, index, positions in found]


class Browser(Protocol):
    """What the filter field asks of its dialog."""

    def filter_rows(self, query: str) -> None: ...

    def move(self, by: int) -> None: ...


class FilterField(Input):
    """The filter: typing narrows the list; Up, Down, PageUp and PageDown move its highlight (Enter submits)."""

    PAGE: ClassVar[int] = 10

    def __init__(self, browser: Browser) -> None:
        super().__init__(placeholder="type to filter: id, name, description", id="filter", compact=True)
        self._browser = browser

    def watch_value(self, value: str) -> None:
        self._browser.filter_rows(value)

    async def _on_key(self, event: events.Key) -> None:
        steps = {"down": 1, "up": -1, "pagedown": self.PAGE, "pageup": -self.PAGE}
        if event.key not in steps:
            return
        event.stop()
        event.prevent_default()
        self._browser.move(steps[event.key])


def details(row: AgentRow) -> Text:
    """The highlighted agent: name, id, version, description, kinds, whether it is installed, what Enter does."""
    text = Text()
    text.append(_shown(" ".join(row.name.split()), 200), "bold")
    text.append("\n")
    for label, value in (
        ("id", _shown(row.key, 160)),
        ("version", escape_controls(row.version[:60])),
        ("kind" if row.section == "installed" else "distributions", ", ".join(row.kinds)),
    ):
        if value:
            text.append(f"{label}: ", "dim")
            text.append(f"{value}\n")
    state = {
        "named": "config.toml's agent: runs now",
        "installed": "installed from the ACP registry",
        "available": "not installed",
        "unusable": "unusable: not installable",
        "well-known": "on PATH: runs now" if row.installed else "not installed",
    }[row.section]
    text.append(f"{state}\n", "bold" if row.installed else "")
    if row.detail:
        text.append(f"{escape_controls(row.detail[:1000])}\n", "dim")
    for note in row.notes:
        text.append(f"{escape_controls(note[:300])}\n", "dim")
    entry = row.entry
    if entry is not None and (entry.repository or entry.license or entry.authors):
        who = ", ".join(entry.authors[:5])[:200]
        for label, value in (("by", who), ("license", entry.license or ""), ("source", entry.repository or "")):
            if value:
                text.append(f"{label}: ", "dim")
                text.append(f"{_shown(value, 200)}\n")
    if row.description:
        text.append("\n")
        lines = row.description.splitlines() or [""]
        for line in lines[:DESCRIPTION_LINES]:
            text.append(_shown(line, LINE_CHARS) + "\n")
        if len(lines) > DESCRIPTION_LINES:
            text.append(f"… ({len(lines) - DESCRIPTION_LINES} more lines)\n", "dim")
    return text


class AddAgentScreen(ModalScreen[Launch | None]):
    """Browse every agent, install a registry one, open one; dismissed with a new tab's launch, or None."""

    CSS_PATH = "add_agent.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", show=False)]

    def __init__(
        self,
        *,
        build: Callable[[str], Launch] | None,
        settings: Settings | None = None,
        search_path: str | None = None,
    ) -> None:
        """`build(agent)` makes a new tab's launch for an agent's name or id (raises `LaunchProblem`); None: the
        app opens no tab with another agent, so the dialog says how to run it instead. `settings`: config.toml's,
        read now when not given."""
        super().__init__()
        self._build = build
        self._settings = settings if settings is not None else load_settings(config_file())[0]
        self._search_path = search_path if search_path is not None else os.environ.get("PATH", os.defpath)
        self.index: IndexReport | None = None
        self.rows: list[AgentRow] = []
        #: the rows the list shows (indexes into `rows`) with the offsets to underline, and how many matched
        self.shown: list[tuple[int, tuple[int, ...]]] = []
        self.matched = 0
        self.highlighted: int | None = None
        #: the registry id being installed, and the child doing it
        self.installing: str | None = None
        self._children: set[asyncio.subprocess.Process] = set()

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="dialog")
        dialog.border_title = "Add an agent"
        with dialog:
            yield FilterField(self)
            with Horizontal(id="panes"):
                options = OptionList(id="agents", compact=True)
                options.can_focus = False  # the filter keeps the focus; its keys move the highlight
                yield options
                details_pane = VerticalScroll(id="details-pane")
                details_pane.can_focus = False
                with details_pane:
                    yield Static(Text(""), id="details")
            yield Static(Text("reading the registry index…"), id="status")
            yield Static(key_hints(BROWSE_HINTS), id="hint")

    def on_mount(self) -> None:
        self._refresh_rows()
        self.query_one("#filter", Input).focus()
        self.run_worker(self._read_index(), group="index")

    # -- the list -------------------------------------------------------------------------------------------

    def _refresh_rows(self, keep: str | None = None) -> None:
        """Rebuild the rows (what is installed may have changed), keeping the highlighted agent (or `keep`)."""
        current = self._current()
        wanted = keep or (current.key if current is not None else None)
        self.rows = roster(self._settings, installed_agents(), self.index, self._search_path)
        self.filter_rows(self.query_one("#filter", Input).value, keep=wanted)

    def filter_rows(self, query: str, keep: str | None = None) -> None:
        """Show the rows matching the filter, the first (or the agent `keep`) highlighted."""
        options = next(self.query("#agents").results(OptionList), None)
        if options is None:
            return  # not composed yet: on_mount fills it
        ranked = ranked_rows(self.rows, query)
        self.matched = len(ranked)
        self.shown = ranked[:MAX_SHOWN]
        options.set_options(Option(self._row(index, positions, marked=False)) for index, positions in self.shown)
        self.highlighted = None
        if self.matched > MAX_SHOWN:
            options.add_option(None)
            options.add_option(Option(Text(f"… {self.matched - MAX_SHOWN} more: type to narrow", "dim"), disabled=True))
        target = next((row for row, (index, _) in enumerate(self.shown) if self.rows[index].key == keep), 0)
        self._highlight(target if self.shown else None)

    def move(self, by: int) -> None:
        if not self.shown:
            return
        start = self.highlighted if self.highlighted is not None else 0
        self._highlight(max(0, min(len(self.shown) - 1, start + by)))

    def _highlight(self, row: int | None) -> None:
        options = self.query_one("#agents", OptionList)
        for old, marked in ((self.highlighted, False), (row, True)):
            if old is not None and old < len(self.shown):
                index, positions = self.shown[old]
                options.replace_option_prompt_at_index(old, self._row(index, positions, marked=marked))
        self.highlighted = row
        options.highlighted = row
        current = self._current()
        self.query_one("#details", Static).update(details(current) if current is not None else self._no_match())
        self.query_one("#details-pane", VerticalScroll).scroll_home(animate=False)
        self._hint()

    def _no_match(self) -> Text:
        query = plain(self.query_one("#filter", Input).value)[:80]
        return Text(f"No agent matches {query!r}." if query else "No agents.", "dim")

    def _current(self) -> AgentRow | None:
        if self.highlighted is None or self.highlighted >= len(self.shown):
            return None
        return self.rows[self.shown[self.highlighted][0]]

    def _row(self, index: int, positions: tuple[int, ...], *, marked: bool) -> Content:
        """`▌ tiny-bin  Tiny agent  1.0.0   registry`: the letters typed underlined, the tag dim."""
        row = self.rows[index]
        label = _label(row)
        base = "bold" if marked else ""
        typed = set(positions)
        parts: list[tuple[str, str]] = [(MARK if marked else " " * len(MARK), base)]
        for at, char in enumerate(label):
            style = f"{base} underline".strip() if at in typed else base
            if parts[-1][1] == style:
                parts[-1] = (parts[-1][0] + char, style)
            else:
                parts.append((char, style))
        parts.append((f"  {TAGS[row.section]}", "dim"))
        return Content.assemble(*parts)

    def _hint(self) -> None:
        if self.installing is not None:
            hints = INSTALL_HINTS
        else:
            current = self._current()
            action = current.action if current is not None else "none"
            first = {"install": "install", "open": "open in a new tab", "none": "(nothing to do)"}[action]
            hints = [("⏎", first), *BROWSE_HINTS[1:]]
        self.query_one("#hint", Static).update(key_hints(hints))

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.update(Text(text))
        status.set_class(error, "-error")

    # -- the child processes ----------------------------------------------------------------------------------

    async def _run_child(self, argv: Sequence[str], report: Callable[[Report], None]) -> tuple[int, str]:
        """Run one worker child, each report it writes to `report`; its exit status and its stderr's end. A
        cancelled run (the dialog closed) stops the child with SIGTERM, which unwinds an install."""
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=_LINE_LIMIT,
        )
        self._children.add(process)
        errors: deque[str] = deque(maxlen=5)

        async def read_errors() -> None:
            assert process.stderr is not None
            async for raw in process.stderr:
                if line := plain(raw.decode("utf-8", "replace")).strip():
                    errors.append(line[:300])

        stderr = asyncio.create_task(read_errors())
        try:
            assert process.stdout is not None
            while True:
                try:
                    raw = await process.stdout.readline()
                except ValueError:  # a line past the limit: not ours
                    continue
                if not raw:
                    break
                if (decoded := decode_report(raw)) is not None:
                    report(decoded)
            code = await process.wait()
            await stderr
            return code, " / ".join(errors)
        finally:
            stderr.cancel()
            self._stop(process)

    def _stop(self, process: asyncio.subprocess.Process) -> None:
        """One SIGTERM per child, however many ways it is stopped (the run's end, the dialog's unmount)."""
        if process not in self._children:
            return
        self._children.discard(process)
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()

    def on_unmount(self) -> None:
        """Closed or quit mid-install: the child is told to stop (it removes what it had begun)."""
        for process in list(self._children):
            self._stop(process)

    async def _read_index(self) -> None:
        found: list[Report] = []
        try:
            code, errors = await self._run_child(command("index"), found.append)
        except OSError as exc:
            self._status(f"cannot read the registry index: {exc.strerror or exc}", error=True)
            return
        report = next((item for item in found if isinstance(item, (IndexReport, Failed))), None)
        match report:
            case IndexReport():
                self.index = report
                self._refresh_rows()
                if self.installing is None:
                    self._status(self._index_line(report))
            case Failed():
                self._status(f"cannot read the registry index: {plain(report.message)[:300]}", error=True)
            case _:
                self._status(f"cannot read the registry index (status {code}): {errors or 'no answer'}", error=True)

    @staticmethod
    def _index_line(index: IndexReport) -> str:
        parts = [f"ACP registry: {len(index.entries)} agents ({plain(index.origin)[:200]})"]
        if index.unusable:
            parts.append(f"{len(index.unusable)} unusable")
        if index.left_out:
            parts.append(f"{index.left_out} more not read")
        parts += [plain(note)[:200] for note in index.notes]
        return "; ".join(parts)

    # -- Enter ----------------------------------------------------------------------------------------------

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        row = self._current()
        if row is None:
            return
        if self.installing is not None:
            self._status(f"{self.installing} is being installed: one install at a time")
            return
        match row.action:
            case "open":
                self._open(row.key)
            case "install":
                self.installing = row.key
                self._hint()
                self._status(f"installing {row.key} {row.version}…")
                self.run_worker(self._install(row), group="install")
            case "none":
                self._status(
                    f"{_shown(row.key, 80)} is unusable: {escape_controls(row.detail[:300])}"
                    if row.section == "unusable"
                    else f"{row.key} is not installed here: {row.detail}",
                    error=True,
                )

    def _open(self, key: str) -> None:
        if self._build is None:
            self._status(f"run it with:  acp-tui {shlex.quote(key)}")
            return
        try:
            launch = self._build(key)
        except LaunchProblem as exc:
            self._status(plain(str(exc))[:500], error=True)
            return
        self.dismiss(launch)

    async def _install(self, row: AgentRow) -> None:
        step = [""]

        def report(item: Report) -> None:
            match item:
                case Step(text=text):
                    step[0] = plain(text)[:200]
                    self._status(step[0])
                case Line(text=text):
                    self._status(f"{step[0]}: {plain(text)[:200]}")
                case Transfer(done=done, total=total):
                    of = f" of {human_size(total)}" if total else ""
                    self._status(f"{step[0]}: {human_size(done)}{of}")
                case Done() | Failed() | IndexReport():
                    outcome.append(item)

        outcome: list[Report] = []
        try:
            code, errors = await self._run_child(command("install", row.key), report)
        except OSError as exc:
            code, errors = -1, str(exc.strerror or exc)
        self.installing = None
        result = outcome[-1] if outcome else None
        match result:
            case Done(id=agent_id, version=version, note=note):
                self._refresh_rows(keep=agent_id)
                then = "⏎ opens it in a new tab" if self._build is not None else f"run it with  acp-tui {agent_id}"
                extra = f" ({plain(note)[:200]})" if note else ""
                self._status(f"Installed {agent_id} {plain(version)[:60]}{extra}: {then}")
            case Failed(message=message):
                self._status(f"cannot install {row.key}: {plain(message)[:500]}", error=True)
            case _:
                self._status(f"cannot install {row.key} (status {code}): {errors or 'no answer'}", error=True)
        self._hint()

    def action_close(self) -> None:
        self.dismiss(None)
