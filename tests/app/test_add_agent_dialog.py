"""*Add an agent…* (acp_tui/ui/dialogs/add_agent.py; issue 41): the palette entry opens every agent acp-tui knows,
typing narrows the list, the highlighted agent's details show beside it, Enter installs a registry agent (the
fixture's binary entry, from the loopback registry of tests/support/registry_server.py) in a child process and then
opens it in a new tab; a missing tool is named; Escape mid-install leaves nothing; a hostile index is shown
literally and bounded. Snapshots at 80×24 and 160×50 (a local index file, so nothing in them varies by run).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from acp_tui.launch import Launch
from acp_tui.registry.roster import MAX_DESCRIPTION, AgentRow
from acp_tui.ui.dialogs.add_agent import MARK, MAX_SHOWN, AddAgentScreen, ranked_rows
from tests.support.elicitation_ui import Host, open_dialog
from tests.support.launches import make_launch
from tests.support.registry_server import RegistryServer, binary_entry, fixture_index, serve_registry
from tests.support.tabs import tab, tabs_app
from tests.support.wait import until

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("_private_dirs")]


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[RegistryServer]:
    """The loopback registry, named by ACP_TUI_REGISTRY (the dialog's child processes inherit it)."""
    with serve_registry() as state:
        state.set_index(fixture_index(state, sys.executable), '"v1"')
        monkeypatch.setenv("ACP_TUI_REGISTRY", state.url)
        yield state


def agents_folder(tmp_path: Path) -> Path:
    return tmp_path / "user-data" / "agents"


class Dialog:
    def __init__(self, screen: AddAgentScreen, pilot: Pilot[Any]) -> None:
        self.screen, self.pilot = screen, pilot

    def keys(self) -> list[str]:
        """The ids the list shows, in order."""
        return [self.screen.rows[index].key for index, _ in self.screen.shown]

    def rows(self) -> list[str]:
        options = self.screen.query_one("#agents", OptionList)
        return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]

    def details(self) -> str:
        return str(self.screen.query_one("#details", Static).render())

    def status(self) -> str:
        return str(self.screen.query_one("#status", Static).render())

    async def loaded(self) -> None:
        await until(lambda: self.screen.index is not None, "the registry's index read", pilot=self.pilot)

    async def type(self, text: str) -> None:
        field = self.screen.query_one("#filter", Input)
        await self.pilot.press(*text)
        await until(lambda: field.value.endswith(text), "the filter typed", pilot=self.pilot)


async def open_host_dialog(app: Host, pilot: Pilot[Any], **kwargs: Any) -> Dialog:
    built: list[str] = kwargs.pop("built", [])

    def build(agent: str) -> Launch:
        built.append(agent)
        return make_launch([agent], Path("/tmp"), name=agent)

    screen = AddAgentScreen(build=build, search_path="", **kwargs)
    await open_dialog(app, pilot, screen, arm=False)
    return Dialog(screen, pilot)


# -- the palette, the list, an install, the tab ------------------------------------------------------------------


async def test_the_palette_entry_browses_installs_and_opens_a_tab(tmp_path: Path, registry: RegistryServer) -> None:
    async with tabs_app(tmp_path, launcher=True) as run:
        await run.pilot.press("ctrl+p", *"add an agent")
        await run.wait(lambda: "Add an agent…" in run.screen_text(), "the palette's entry")
        await run.pilot.press("enter")
        await run.wait(lambda: isinstance(run.app.screen, AddAgentScreen), "the dialog")
        screen = run.app.screen
        assert isinstance(screen, AddAgentScreen)
        dialog = Dialog(screen, run.pilot)
        await dialog.loaded()
        keys = dialog.keys()
        assert keys[:5] == ["claude-acp", "tiny-py", "tiny-bin", "tiny-bin-wrong", "tiny-bin-nosum"]
        assert "ACP registry: 5 agents" in dialog.status()

        await dialog.type("tinybn")  # the letters in order
        assert dialog.keys() == ["tiny-bin", "tiny-bin-wrong", "tiny-bin-nosum"]
        assert dialog.rows()[0].startswith(MARK + "tiny-bin  Tiny agent (tiny-bin)  1.0.0")
        shown = dialog.details()
        for part in ("Tiny agent (tiny-bin)", "id: tiny-bin", "version: 1.0.0", "distributions: binary"):
            assert part in shown
        assert "not installed" in shown and "The built-in demo agent in an archive" in shown
        await run.pilot.press("down")
        assert "id: tiny-bin-wrong" in dialog.details()
        await run.pilot.press("up", "enter")

        await run.wait(lambda: "Installed tiny-bin 1.0.0" in dialog.status(), "the install", timeout=60)
        assert "⏎ opens it in a new tab" in dialog.status()
        assert (agents_folder(tmp_path) / "tiny-bin" / "1.0.0" / "acp-tui-install.json").is_file()
        assert dialog.screen._current() is not None and dialog.screen._current().section == "installed"  # type: ignore[union-attr]
        assert "installed from the ACP registry" in dialog.details()

        await run.pilot.press("enter")
        await run.wait(lambda: len(run.app.tabs.tabs) == 2, "the agent's tab")
        assert tab(run, 2).screen.launch.agent_name == "tiny-bin"
        await run.ready()  # the installed archive runs the demo agent: its session opens and greets


async def test_a_missing_tool_is_named_and_nothing_is_installed(
    tmp_path: Path, registry: RegistryServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no npm, no node
    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_host_dialog(app, pilot)
        await dialog.loaded()
        await dialog.type("claude-acp")
        await pilot.press("enter")
        await until(lambda: "cannot install claude-acp" in dialog.status(), "the refusal", pilot=pilot, timeout=30)
        assert "installed with npm" in dialog.status() and "install Node.js" in dialog.status()
        assert dialog.screen.query_one("#status").has_class("-error")
        assert not agents_folder(tmp_path).exists() or not any(agents_folder(tmp_path).iterdir())


async def test_an_unverified_archive_is_refused_with_the_command_that_takes_it(
    tmp_path: Path, registry: RegistryServer
) -> None:
    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_host_dialog(app, pilot)
        await dialog.loaded()
        await dialog.type("tiny-bin-nosum")
        await pilot.press("enter")
        await until(lambda: "cannot install" in dialog.status(), "the refusal", pilot=pilot, timeout=30)
        assert "acp-tui add tiny-bin-nosum --trust-unverified" in dialog.status()


async def test_escape_mid_install_stops_it_and_leaves_nothing(tmp_path: Path, registry: RegistryServer) -> None:
    registry.stall.add("archives/tiny-agent-1.0.0.tar.gz")
    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_host_dialog(app, pilot)
        await dialog.loaded()
        await dialog.type("tiny-bin")
        await pilot.press("enter")
        await until(registry.half_sent.is_set, "half the archive sent", pilot=pilot, timeout=30)
        assert dialog.screen.installing == "tiny-bin" and "stop the install" in str(
            dialog.screen.query_one("#hint", Static).render()
        )
        children = list(dialog.screen._children)
        assert len(children) == 1
        await pilot.press("escape")
        await until(lambda: app.results == [None], "the dialog closed", pilot=pilot)
        await until(lambda: children[0].returncode is not None, "the install's child ended", pilot=pilot)
        folder = agents_folder(tmp_path)
        assert not (folder / "tiny-bin").exists(), sorted(p.name for p in folder.rglob("*"))


async def test_an_agent_that_runs_already_opens_at_once(tmp_path: Path, registry: RegistryServer) -> None:
    config = tmp_path / "user-config" / "config.toml"
    config.write_text('[agents.mine]\ncommand = ["my-agent", "--acp"]\n', encoding="utf-8")
    built: list[str] = []
    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_host_dialog(app, pilot, built=built)
        await dialog.loaded()  # (the registry's rows come after config.toml's; waited for, not raced)
        assert dialog.keys()[0] == "mine"
        assert "config.toml's agent: runs now" in dialog.details() and "my-agent --acp" in dialog.details()
        await pilot.press("enter")
        await until(lambda: app.results, "the dialog dismissed", pilot=pilot)
        assert built == ["mine"] and isinstance(app.results[0], Launch)


# -- hostile entries ---------------------------------------------------------------------------------------------


def hostile_index(tmp_path: Path) -> Path:
    """A local index: a name with escape codes, a description of 5 MB in one line and of 10,000 lines, an id
    with escapes (unusable: the schema's pattern), and 2,500 agents (more than are read, more than are shown)."""
    escapes = "\x1b[31mRED\x1b]52;c;cHduZWQ=\x07\u202eevil"
    agents: list[dict[str, Any]] = [
        {**binary_entry("hostile-name", "1.0.0", "https://example.com/a.tar.gz", "0" * 64), "name": escapes},
        {
            **binary_entry("huge-line", "1.0.0", "https://example.com/a.tar.gz", "0" * 64),
            "description": "x" * 5_000_000,
        },
        {
            **binary_entry("many-lines", "1.0.0", "https://example.com/a.tar.gz", "0" * 64),
            "description": "line\n" * 10_000,
        },
        {**binary_entry("bad\x1b[2Jid", "1.0.0", "https://example.com/a.tar.gz", "0" * 64)},
    ]
    agents += [binary_entry(f"filler-{n}", "1.0.0", "https://example.com/a.tar.gz", "0" * 64) for n in range(2_500)]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({"version": "1.0.0", "agents": agents, "extensions": []}), encoding="utf-8")
    return path


async def test_hostile_entries_are_shown_literally_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_REGISTRY", str(hostile_index(tmp_path)))
    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_host_dialog(app, pilot)
        await until(lambda: dialog.screen.index is not None, "the index read", pilot=pilot, timeout=60)
        index = dialog.screen.index
        assert index is not None and index.left_out > 0
        assert all(len(entry.description) <= MAX_DESCRIPTION for entry in index.entries)
        options = dialog.screen.query_one("#agents", OptionList)
        assert options.option_count <= MAX_SHOWN + 2  # the rest counted, not drawn
        assert "more: type to narrow" in dialog.rows()[-1]
        assert "more not read" in dialog.status() and "unusable" in dialog.status()

        await dialog.type("hostile")
        row = dialog.rows()[0]
        assert "\\x1b[31mRED\\x1b]52;c;cHduZWQ=\\x07\\u202eevil" in row and "\x1b" not in row
        assert "\\x1b[31mRED" in dialog.details() and "\x1b" not in dialog.details()

        field = dialog.screen.query_one("#filter", Input)
        field.value = "huge-line"
        await until(lambda: dialog.keys()[:1] == ["huge-line"], "the huge entry", pilot=pilot)
        assert len(dialog.details()) < MAX_DESCRIPTION + 1_000

        field.value = "many-lines"
        await until(lambda: dialog.keys()[:1] == ["many-lines"], "the long entry", pilot=pilot)
        assert dialog.details().count("line\n") <= 40 and "more lines)" in dialog.details()

        field.value = "badid"
        await until(lambda: dialog.keys()[:1] == ["bad\x1b[2Jid"], "the unusable entry", pilot=pilot)
        assert "bad\\x1b[2Jid" in dialog.rows()[0] and "unusable" in dialog.details()
        await pilot.press("enter")
        assert "is unusable" in dialog.status() and not app.results


def test_ranking_puts_the_id_first_then_the_name_then_the_description() -> None:
    rows = [
        AgentRow("available", "zed-thing", "Helper for coding", "install", description="a tiny agent"),
        AgentRow("available", "tiny", "Tiny", "install"),
        AgentRow("available", "other", "Tiny helper", "install"),
        AgentRow("available", "t-i-n-y", "x", "install"),
    ]
    assert [rows[i].key for i, _ in ranked_rows(rows, "tiny")] == ["tiny", "t-i-n-y", "other", "zed-thing"]
    assert [rows[i].key for i, _ in ranked_rows(rows, "")] == [row.key for row in rows]
    assert ranked_rows(rows, "nothing-like-it") == []


# -- snapshots ---------------------------------------------------------------------------------------------------


def snapshot_index(tmp_path: Path) -> None:
    agents = [
        {
            **binary_entry("tiny-bin", "1.0.0", "https://example.com/tiny-agent-1.0.0.tar.gz", "0" * 64),
            "description": "The built-in demo agent in an archive.\nIt answers a few scripted prompts.",
            "authors": ["acp-tui's tests"],
            "license": "MIT",
        },
        {
            "id": "claude-acp",
            "name": "Claude Agent",
            "version": "0.101.0",
            "description": "ACP wrapper for Anthropic's Claude",
            "distribution": {"npx": {"package": "@agentclientprotocol/claude-agent-acp@0.101.0"}},
        },
        {
            "id": "tiny-py",
            "name": "Tiny agent (PyPI)",
            "version": "1.0.0",
            "description": "The built-in demo agent as a console script",
            "distribution": {"uvx": {"package": "tiny-acp-agent==1.0.0"}},
        },
    ]
    (tmp_path / "registry.json").write_text(json.dumps({"version": "1.0.0", "agents": agents}), encoding="utf-8")


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_add_agent(
    snap_compare: Any, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot_index(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACP_TUI_REGISTRY", "registry.json")  # relative: the status line names no temp folder

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, Host)
        dialog = await open_host_dialog(app, pilot)
        await dialog.loaded()
        await dialog.type("tiny")
        await pilot.pause()

    assert snap_compare(Host(), terminal_size=size, run_before=run_before)
