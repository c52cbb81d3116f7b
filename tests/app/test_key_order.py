"""Every key lands, in the order typed (acp_tui/ui/key_order.py): bursts of one read into the prompt.

The report of 2026-12-07 (a first-use trial) found `abc⌫Z` giving `abc` and `first⏎second` losing `second`:
the bindings of the prompt (Backspace, Ctrl+W, Home) ran after the letters behind them, and the prompt was
emptied after the next keys had landed in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.services.elicitation import FormAccepted
from acp_tui.ui.dialogs.elicitation_form import ElicitationFormScreen
from acp_tui.ui.widgets.file_picker import FilePicker
from tests.support.app_run import AppRun, project_dir, running_app
from tests.support.elicitation_ui import Host, form_question, open_dialog
from tests.support.keys import burst
from tests.support.wait import until

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test


async def settled(run: AppRun) -> None:
    """The burst was read by the app and every key of it handled."""
    await run.pilot.pause()
    await until(lambda: run.app.key_order.pending == 0, "the burst to be handled", pilot=run.pilot)
    await run.pilot.pause()


CASES = [
    ("abc⌫Z", "abZ"),
    ("teh⌫⌫he cat", "the cat"),
    ("hello world{ctrl+w}there", "hello there"),
    ("ab⇱X", "Xab"),
    ("ab←X", "aXb"),
    ("abc{ctrl+u}myproj", "myproj"),
    ("acdef⌫g", "acdeg"),
]


@pytest.mark.parametrize(("keys", "expected"), CASES, ids=[expected for _, expected in CASES])
async def test_a_burst_of_edits_lands_in_order(tmp_path: Path, keys: str, expected: str) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        burst(run.app, keys)
        await settled(run)
        assert prompt.text == expected


async def test_text_typed_after_enter_stays_for_the_next_message(tmp_path: Path) -> None:
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        burst(run.app, "first⏎second")
        await settled(run)
        await run.idle()
        assert run.prompts_received() == ["first"]
        assert prompt.text == "second"


# -- dialog fields: the same queue hands each key to the field that has the focus when its turn comes -------


async def _form_burst(keys: str) -> Any:
    question = form_question(
        {
            "name": {"type": "string", "title": "Name"},
            "ok": {"type": "boolean"},
            "size": {"type": "string", "enum": ["S", "M", "L"]},
            "years": {"type": "integer", "minimum": 0},
        },
        ["name"],
    )
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = ElicitationFormScreen(question, agent="Claude", arm_delay=0.05)
        await open_dialog(app, pilot, screen)
        burst(app, keys)
        await pilot.pause()
        await until(lambda: app.key_order.pending == 0, "the burst to be handled", pilot=pilot)
        burst(app, "{ctrl+s}")
        for _ in range(300):
            if app.results:
                return app.results[0]
            await pilot.pause(0.01)
    raise AssertionError("the form gave no result")


async def test_a_form_filled_in_one_burst_gets_every_field_and_the_checkbox() -> None:
    outcome = await _form_burst("Ada⇥␣⇥⇥42")
    assert outcome == FormAccepted({"name": "Ada", "ok": True, "years": 42})


async def test_ctrl_u_then_text_in_a_form_field_keeps_the_text() -> None:
    outcome = await _form_burst("Adam{ctrl+u}myproj⌫j")
    assert outcome == FormAccepted({"name": "myproj", "ok": False})


async def test_escape_then_a_digit_read_as_alt_digit_types_the_digit(tmp_path: Path) -> None:
    """`Esc 1` is what Alt+1 sends, and what Escape then `1` typed fast gives in one read: with no tab 1 to show
    (one tab), it is Escape (the `@` picker closes) and the `1` lands in the prompt (m15 of the report)."""
    (project_dir(tmp_path) / "README.md").write_text("hi\n")
    async with running_app(tmp_path, {"version": 2}) as run:
        prompt = run.chat.prompt_input
        picker = run.chat.query_one(FilePicker)
        burst(run.app, "see @RE")
        await settled(run)
        assert picker.is_open
        burst(run.app, "{alt+1} and 2")
        await settled(run)
        assert prompt.text == "see @RE1 and 2"
        assert not picker.is_open
        assert len(run.app.tabs.tabs) == 1


async def test_lines_typed_before_the_app_could_read_are_sent(tmp_path: Path) -> None:
    """Lines the terminal had already ended (its CR made a line feed) are typed ahead, each line feed an Enter."""
    async with running_app(tmp_path, {"version": 2}) as run:
        run.app.key_order.type_ahead("hello early bird\nnext")
        run.app.key_order.release()
        await settled(run)
        await run.idle()
        assert run.prompts_received() == ["hello early bird"]
        assert run.chat.prompt_input.text == "next"
