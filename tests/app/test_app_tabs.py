"""Tabs (issue 24) against the demo agent: every key, the bar's states, hidden tabs that keep working and
whose questions wait for them, closing and quitting (acp_tui/ui/tabs, acp_tui/ui/chat/presence.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tui.session.model import AGENT_MESSAGE, Message
from acp_tui.ui.browsers.sessions import SessionBrowser
from acp_tui.ui.chat.screen import ChatScreen
from acp_tui.ui.dialogs.close_tab import CloseTabScreen
from acp_tui.ui.dialogs.new_tab import NewTabScreen
from acp_tui.ui.dialogs.permission import PermissionScreen
from acp_tui.ui.timeline.agent_message import AgentMessageView
from acp_tui.ui.widgets.tab_bar import TabBar
from tests.support.demo_app import DemoRun
from tests.support.tabs import chat, second_tab, tab, tabs_app
from tests.support.wait import armed

pytestmark = pytest.mark.usefixtures("_private_dirs")  # the app's folders, private to each test


async def choose_session(run: DemoRun, session_id: str) -> None:
    """In the open session list, put the cursor on `session_id`'s row and press Enter."""
    browser = run.app.screen
    assert isinstance(browser, SessionBrowser)
    await run.wait(lambda: any(r.session_id == session_id for r in browser.list_view.rows), "the session listed")
    rows = browser.list_view.rows
    browser.list_view.cursor = browser.list_view.shown.index(
        next(i for i, r in enumerate(rows) if r.session_id == session_id)
    )
    await run.pilot.press("enter")


def bar(run: DemoRun) -> TabBar:
    return run.chat.query_one(TabBar)


def bar_line(run: DemoRun) -> str:
    return run.screen_text().splitlines()[0]


def model_text(screen: ChatScreen) -> str:
    """Every agent message of the tab's model (what it knows, shown or not)."""
    entities = screen.controller.state.entities.values()
    return "\n".join(e.text for e in entities if isinstance(e, Message) and e.key[0] == AGENT_MESSAGE)


def shown_text(screen: ChatScreen) -> str:
    return "\n".join(w.text for w in screen.conversation.entries if isinstance(w, AgentMessageView))


@pytest.mark.asyncio
async def test_acp_tui_starts_with_one_tab_and_no_bar(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        assert len(run.app.tabs.tabs) == 1
        assert not bar(run).display
        assert "◆" in bar_line(run)  # the header is the top line


@pytest.mark.asyncio
async def test_ctrl_t_opens_a_new_session_of_the_same_agent_and_folder(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        first = chat(run, 1)
        await second_tab(run)
        second = chat(run, 2)
        assert run.app.screen is second
        assert second.launch.agent_argv == first.launch.agent_argv and second.launch.cwd == first.launch.cwd
        assert second.controller is not first.controller
        assert second.controller.session is not None and first.controller.session is not None
        assert second.controller.session.session_id != first.controller.session.session_id
        assert second.controller.session.transport is not first.controller.session.transport
        assert bar(run).display
        await run.wait(lambda: bar_line(run).startswith(" 1 ● "), "the bar on the top line")
        assert " 2 ● " in bar_line(run)
        assert run.chat.prompt_input.has_focus


@pytest.mark.asyncio
async def test_alt_digits_ctrl_page_keys_and_a_click_switch_tabs(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        await second_tab(run)
        await run.pilot.press("ctrl+t")
        await run.wait(lambda: len(run.app.tabs.tabs) == 3, "a third tab")
        await run.ready()
        assert run.app.screen is chat(run, 3)
        await run.pilot.press("alt+1")
        assert run.app.screen is chat(run, 1)
        await run.pilot.press("alt+3")
        assert run.app.screen is chat(run, 3)
        await run.pilot.press("ctrl+pagedown")  # round the end
        assert run.app.screen is chat(run, 1)
        await run.pilot.press("ctrl+pageup")
        assert run.app.screen is chat(run, 3)
        await run.pilot.press("ctrl+pageup")
        assert run.app.screen is chat(run, 2)
        await run.pilot.press("alt+9")  # no such tab: nothing happens, nothing is typed
        assert run.app.screen is chat(run, 2) and run.chat.prompt_input.text == ""
        await run.pilot.pause()
        [span] = [s for s in bar(run)._spans if s.number == 1]
        await run.pilot.click(TabBar, offset=(span.start + 1, 0))
        assert run.app.screen is chat(run, 1)


@pytest.mark.asyncio
async def test_a_hidden_tab_keeps_streaming_into_its_model_and_shows_it_when_shown(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.1") as run:
        await run.send("slow")
        first = chat(run, 1)
        await run.wait(lambda: "1…" in shown_text(first), "the count to begin")
        await second_tab(run)
        shown_then = shown_text(first)
        await run.wait(lambda: "10…" in model_text(first), "the count to go on while hidden")
        assert shown_text(first) == shown_then  # nothing is drawn while hidden
        assert first.pump.pending  # it waits for the tab
        await run.wait(lambda: tab(run, 1).screen.presence.unseen, "the unseen mark")
        await run.wait(lambda: "1 ◐" in bar_line(run) and "•" in bar_line(run), "tab 1 working, with unseen output")
        await run.send("markdown")
        await run.idle()
        await run.pilot.press("alt+1")
        await run.wait(lambda: "10…" in shown_text(first), "what came while hidden, drawn")
        assert not tab(run, 1).screen.presence.unseen
        await run.wait(lambda: "done." in shown_text(first), "the count to finish", timeout=20)
        await run.wait(lambda: " 1 ● " in bar_line(run), "tab 1 idle again")


@pytest.mark.asyncio
async def test_a_hidden_tabs_permission_waits_for_it_and_never_opens_over_the_shown_tab(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        bells: list[int] = []
        run.app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        await second_tab(run)
        first = chat(run, 1)
        first.controller.submit("edit")  # tab 1 asks while tab 2 shows
        await run.wait(lambda: tab(run, 1).state == "waiting", "tab 1 to need the user")
        await run.wait(lambda: " 1 ⚠ " in bar_line(run), "⚠ on tab 1")
        assert run.app.screen is chat(run, 2)
        assert not any(isinstance(s, PermissionScreen) for s in run.app.screen_stack)
        assert bells, "the attention bell rings for a hidden tab's question, even in a focused window"
        await run.send("hello")  # tab 2 goes on as usual
        await run.idle()
        assert "hello" in run.last_message()
        await run.pilot.press("alt+1")
        dialog = await run.armed_dialog()
        assert run.app.get_screen_stack()[-2] is first
        await run.pilot.press("a")
        await run.wait(lambda: not first.controller.busy, "tab 1's turn to end")
        await run.wait(lambda: " 1 ● " in bar_line(run), "tab 1 idle")
        assert dialog not in run.app.screen_stack


@pytest.mark.asyncio
async def test_a_dialog_left_open_stays_with_its_tab_and_a_withdrawal_while_hidden_closes_it_there(
    tmp_path: Path,
) -> None:
    async with tabs_app(tmp_path) as run:
        await second_tab(run)
        await run.pilot.press("alt+1")
        await run.send("edit")
        dialog = await run.armed_dialog()
        first = chat(run, 1)
        await run.pilot.press("alt+2")  # away from the open question
        assert run.app.screen is chat(run, 2)
        await run.pilot.press("alt+1")
        assert run.app.screen_stack[-1] is dialog  # it waited where it was
        await run.pilot.press("alt+2")
        assert first.controller.cancel()  # the turn ends while its tab is hidden: the question is withdrawn
        await run.wait(lambda: dialog not in run.app.get_screen_stack(tab(run, 1).mode), "the dialog to leave tab 1")
        assert run.app.screen is chat(run, 2)  # the shown tab lost nothing
        await run.pilot.press("h", "i")
        assert run.chat.prompt_input.text == "hi"
        await run.pilot.press("alt+1")
        assert run.app.screen is first


@pytest.mark.asyncio
async def test_ctrl_c_cancels_the_shown_tabs_turn_only(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2") as run:
        await run.send("slow")
        await second_tab(run)
        await run.send("slow")
        await run.wait(lambda: chat(run, 2).controller.busy, "tab 2 working")
        await run.pilot.press("ctrl+c")
        await run.wait(lambda: not chat(run, 2).controller.busy, "tab 2 cancelled")
        assert chat(run, 2).controller.state.foreground.stop_reason == "cancelled"
        assert chat(run, 1).controller.busy, "tab 1 still counts"
        await run.pilot.press("alt+1")
        await run.pilot.press("ctrl+c")
        await run.wait(lambda: not chat(run, 1).controller.busy, "tab 1 cancelled")


@pytest.mark.asyncio
async def test_tabs_of_one_agent_are_named_from_their_first_prompt_until_the_agent_titles_them(tmp_path: Path) -> None:
    """The first-use report's m8: two tabs of one agent both read the agent's name. A tab is named from the start of
    its first prompt as soon as it is sent (the demo titles a session only when its turn ends, so the `slow` turns
    show the fallback), and the agent's title wins once it comes."""
    async with tabs_app(tmp_path, speed="1") as run:
        assert tab(run, 1).title == chat(run, 1).controller.agent_name
        await run.send("slow please, the first tab counts here while I look around")
        await run.wait(lambda: tab(run, 1).title == "slow please, the first tab co…", "tab 1 named from its prompt")
        assert chat(run, 1).controller.state.info.title is None, "the agent has not titled it"
        await second_tab(run)
        assert tab(run, 2).title == chat(run, 2).controller.agent_name
        await run.send("slow, and the second one")
        await run.wait(lambda: tab(run, 2).title == "slow, and the second one", "tab 2 named from its prompt")
        await run.wait(
            lambda: (
                [label.title for label in bar(run).labels]
                == ["slow please, the first tab co…", "slow, and the second one"]
            ),
            "the bar names both tabs apart",
        )
        assert "slow please, the first tab co…" in bar_line(run) and "slow, and the second one" in bar_line(run)
        chat(run, 2).controller.state.info.title = "The agent's own title"
        assert tab(run, 2).title == "The agent's own title"


@pytest.mark.asyncio
async def test_ctrl_w_closes_an_idle_tab_and_with_one_tab_deletes_a_word(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        run.chat.prompt_input.load_text("two words")
        run.chat.prompt_input.move_cursor((0, 9))
        await run.pilot.press("ctrl+w")
        assert run.chat.prompt_input.text == "two "  # one tab: the prompt's own Ctrl+W
        await second_tab(run)
        second = chat(run, 2)
        session = second.controller.session
        assert session is not None
        await run.pilot.press("ctrl+w")
        assert len(run.app.tabs.tabs) == 1 and run.app.screen is chat(run, 1)
        await run.wait(lambda: second.controller.closed, "tab 2's session to be closed")
        await run.wait(lambda: session.connection.exit_info is not None, "tab 2's agent to exit")
        await run.wait(lambda: not bar(run).display, "the bar gone with the second tab")
        assert list(run.app._screen_stacks) == [tab(run, 1).mode]  # tab 2's screens are gone


@pytest.mark.asyncio
async def test_the_app_starts_in_the_first_tabs_mode_and_the_first_tab_closes_like_any(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        first = tab(run, 1)
        # no empty default screen was built and switched away from (issue 27's start-up)
        assert run.app.current_mode == first.mode and list(run.app._screen_stacks) == [first.mode]
        await second_tab(run)
        await run.pilot.press("alt+1")
        assert run.app.screen is first.screen
        await run.pilot.press("ctrl+w")
        assert run.app.tabs.tabs == [tab(run, 1)] and run.app.screen is tab(run, 1).screen is not first.screen
        await run.wait(lambda: first.screen.controller.closed, "tab 1's session to be closed")
        assert list(run.app._screen_stacks) == [tab(run, 1).mode] != [first.mode]
        await run.pilot.press("ctrl+t")  # a new tab after the first one closed: its own mode, not the first's
        await run.wait(lambda: len(run.app.tabs.tabs) == 2, "a new tab")
        await run.ready()
        assert len({t.mode for t in run.app.tabs.tabs}) == 2 and first.mode not in run.app._screen_stacks


@pytest.mark.asyncio
async def test_ctrl_w_on_a_working_tab_asks_first(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2") as run:
        await second_tab(run)
        await run.send("slow")
        await run.wait(lambda: chat(run, 2).controller.busy, "tab 2 working")
        await run.pilot.press("ctrl+w")
        question = await armed(run.pilot, CloseTabScreen, what="the close question")
        assert "Close tab 2" in run.screen_text() and "Its agent is working." in run.screen_text()
        await run.pilot.press("n")
        await run.wait(lambda: question not in run.app.screen_stack, "the question to close")
        assert len(run.app.tabs.tabs) == 2 and chat(run, 2).controller.busy
        await run.pilot.press("ctrl+w")
        await armed(run.pilot, CloseTabScreen, what="the close question again")
        await run.pilot.press("y")
        await run.wait(lambda: len(run.app.tabs.tabs) == 1, "tab 2 closed")
        assert run.app.screen is chat(run, 1)


@pytest.mark.asyncio
async def test_ctrl_q_ends_every_tabs_session_and_agent(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2") as run:
        await second_tab(run)
        await run.send("slow")
        await run.pilot.press("ctrl+t")
        await run.wait(lambda: len(run.app.tabs.tabs) == 3, "a third tab")
        await run.ready()
        sessions = [t.screen.controller.session for t in run.app.tabs.tabs]
        await run.pilot.press("ctrl+q")
        await run.wait(
            lambda: all(s is not None and s.connection.exit_info is not None for s in sessions), "every agent"
        )
        assert all(t.screen.controller.closed for t in run.app.tabs.tabs)


@pytest.mark.asyncio
async def test_new_tab_with_agent_starts_a_command_in_another_folder(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, launcher=True) as run:
        other = tmp_path / "other"
        other.mkdir()
        run.app.action_new_tab_with_agent()
        await run.wait(
            lambda: isinstance(run.app.screen, NewTabScreen) and bool(run.app.screen.query("#folder")),
            "the new tab dialog",
        )
        dialog = run.app.screen
        agent = dialog.query_one("#agent")
        folder = dialog.query_one("#folder")
        assert folder.value == str(tmp_path / "project")  # type: ignore[attr-defined]
        agent.value = "no-such-agent-here --acp"  # type: ignore[attr-defined]
        folder.focus()
        await run.pilot.press("enter")
        await run.wait(lambda: "command not found" in run.screen_text(), "the problem said in the dialog")
        assert run.app.screen is dialog and len(run.app.tabs.tabs) == 1
        agent.value = f"{sys.executable} -m acp_tui.demo"  # type: ignore[attr-defined]
        folder.value = str(other)  # type: ignore[attr-defined]
        await run.pilot.press("enter")
        await run.wait(lambda: len(run.app.tabs.tabs) == 2, "the new tab")
        await run.ready()
        assert run.chat.launch.cwd == other and run.chat.launch.agent_argv[-1] == "acp_tui.demo"
        assert run.chat.controller.session is not None and Path(run.chat.controller.session.cwd) == other


@pytest.mark.asyncio
async def test_new_tab_from_session_opens_the_session_list_in_the_new_tab(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        await run.turn("hello")
        run.app.action_new_tab_from_session()
        await run.wait(lambda: len(run.app.tabs.tabs) == 2, "the new tab")
        await run.wait(lambda: isinstance(run.app.screen, SessionBrowser), "its session list")
        assert run.app.get_screen_stack(tab(run, 2).mode)[0] is chat(run, 2)


@pytest.mark.asyncio
async def test_the_palette_offers_the_tab_commands(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        await second_tab(run)
        await run.pilot.press("ctrl+p")
        await run.pilot.press(*"tab")
        for entry in ("New tab with agent…", "New tab from session…", "Close tab", "Tab 1: "):

            def listed(entry: str = entry) -> bool:
                return entry in run.screen_text()

            await run.wait(listed, f"the palette's {entry!r}")
        await run.pilot.press("escape")


@pytest.mark.asyncio
async def test_a_hidden_tabs_long_turn_rings_when_it_ends(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2") as run:
        first = chat(run, 1)
        rung: list[tuple[bool, bool]] = []  # (tab 1 still working, tab 1 hidden) when the bell rang
        run.app.bell = lambda: rung.append(  # type: ignore[method-assign]
            (first.controller.busy, run.app.tabs.current is not tab(run, 1))
        )
        first.attention.turn_threshold = 0.0  # every turn counts as long here
        await run.send("slow")
        await run.wait(lambda: first.controller.busy, "tab 1 working")
        await second_tab(run)
        assert first.controller.busy, "the turn outlasts opening a tab (speed 0.2: 6 s)"
        await run.wait(lambda: not first.controller.busy, "tab 1's turn to end", timeout=30)
        await run.wait(lambda: bool(rung), "the bell for the hidden tab's finished turn")
        assert rung == [(False, True)]
        assert run.app.screen is chat(run, 2)


@pytest.mark.asyncio
async def test_a_hidden_tabs_prompt_cursor_does_not_blink(tmp_path: Path) -> None:
    """An idle hidden tab costs no CPU: its prompt keeps the focus of its screen, but its blink timer sleeps."""
    async with tabs_app(tmp_path) as run:
        first = chat(run, 1).prompt_input
        assert first.blink_timer._active.is_set()
        await second_tab(run)
        await run.wait(lambda: not first.blink_timer._active.is_set(), "tab 1's blink paused")
        assert first._cursor_visible  # drawn, not blinking
        assert run.chat.prompt_input.blink_timer._active.is_set()
        await run.pilot.press("alt+1")
        await run.wait(lambda: first.blink_timer._active.is_set(), "tab 1's blink again")


@pytest.mark.asyncio
async def test_ctrl_c_twice_on_an_idle_tab_says_which_other_tabs_it_would_end(tmp_path: Path) -> None:
    async with tabs_app(tmp_path, speed="0.2") as run:
        await run.send("slow")
        await second_tab(run)
        assert run.app.tabs.working_elsewhere() == "tab 1 is working"
        await run.pilot.press("ctrl+c")
        await run.wait(
            lambda: any("Press Ctrl-C again to quit (tab 1 is working)." in message for _, message, _ in run.toasts),
            "the quit warning naming tab 1",
        )
        assert chat(run, 1).controller.busy


@pytest.mark.asyncio
async def test_a_session_open_in_another_tab_is_shown_there_not_opened_twice(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        await run.turn("hello")
        first = chat(run, 1)
        assert first.controller.session is not None
        wanted = first.controller.session.session_id
        assert wanted is not None
        run.app.action_new_tab_from_session()
        await run.wait(lambda: len(run.app.tabs.tabs) == 2, "the new tab")
        await run.wait(lambda: isinstance(run.app.screen, SessionBrowser), "its session list")
        await choose_session(run, wanted)
        await run.wait(lambda: len(run.app.tabs.tabs) == 1, "the tab opened to pick it closed")
        assert run.app.screen is first
        await run.wait(lambda: any("open in tab 1" in message for _, message, _ in run.toasts), "said so")
        assert first.controller.session is not None and first.controller.session.session_id == wanted


@pytest.mark.asyncio
async def test_ctrl_o_on_a_session_another_tab_holds_shows_that_tab_and_keeps_this_one(tmp_path: Path) -> None:
    async with tabs_app(tmp_path) as run:
        await run.turn("hello")
        first = chat(run, 1)
        assert first.controller.session is not None
        wanted = first.controller.session.session_id
        assert wanted is not None
        await second_tab(run)
        await run.pilot.press("ctrl+o")
        await run.wait(lambda: isinstance(run.app.screen, SessionBrowser), "the session list")
        await choose_session(run, wanted)
        await run.wait(lambda: run.app.screen is first, "tab 1 shown")
        assert len(run.app.tabs.tabs) == 2
        second = chat(run, 2).controller.session
        assert second is not None and second.session_id != wanted  # tab 2 kept its own session
