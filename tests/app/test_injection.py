"""Agent text is data: the hostile `injection` scenario through the real app applies no markup,
sends no escape sequence to the terminal, triggers nothing, and imitates no button.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console
from rich.segment import Segment
from textual.widgets import Button

from acp_tui.paths import transcripts_dir
from acp_tui.ui.app import AcpApp
from acp_tui.ui.dialogs.permission import PermissionScreen
from acp_tui.ui.timeline.tool_call import ToolCallCard
from tests.support.agents.hostile_agent import DONE_MARKER, PERMISSION_BUTTON_IMITATION
from tests.support.hostile import SIZE, hostile, make_launch, screen_text, start_and_prompt, wait_for

#: What must never reach the terminal from agent text: ESC, BEL, NUL, bidi overrides, OSC payloads.
FORBIDDEN = ("\x1b", "\x07", "\x00", "\u202e", "\u202c", "]52;", "aGk=", "]0;pwned", "]8;;", "\x9b", "\x9d")


def segments(app: AcpApp) -> list[Segment]:
    """Every styled segment of the screen as Textual would send it to the terminal."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console = Console(
        width=app.size.width,
        height=app.size.height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    assert update is not None
    return list(console.render(update))


#: A control character written out as a name (`\\x1b]52;…`): a command line shows what runs, as printable text.
ESCAPED = re.compile(r"\\x1b\S*")


def assert_clean(text: str) -> None:
    """No control character, and no payload of a sequence except where it is written out after a shown `\\x1b`
    (a command line's, issue 38), which is printable text the terminal only prints."""
    printable = ESCAPED.sub("", text)
    for bad in FORBIDDEN:
        assert bad not in printable, repr(bad)
    assert not any(ord(char) < 0x20 and char != "\n" for char in text), repr(text)


async def test_injection_through_the_real_app(app_dirs: Path, tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    app = AcpApp(make_launch(hostile("injection"), tmp_path, log_path=log), arm_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        chat = await start_and_prompt(pilot, app, "inject")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), what="the hostile permission dialog")
        dialog_text = screen_text(app)
        assert_clean(dialog_text)
        assert "[bold red]x[/]" in dialog_text  # markup shown literally
        # The option labels are the agent's text, shown literally on real buttons of the dialog.
        labels = [str(button.label) for button in app.screen.query(Button)]
        assert any("[bold red]x[/]" in label for label in labels), labels
        await wait_for(
            pilot, lambda: isinstance(app.screen, PermissionScreen) and app.screen.armed, what="the dialog to arm"
        )  # a key before that only restarts its countdown
        await pilot.press("r")  # reject (the hostile options are allow_once, allow_always, reject_once)
        await wait_for(pilot, lambda: app.screen is chat, what="the dialog closed")
        await wait_for(pilot, lambda: DONE_MARKER in screen_text(app), what="the done marker")
        text = screen_text(app)
        assert_clean(text)
        assert "[bold red]x[/]" in text
        assert "[link=https://evil.example]click[/link]" in text
        assert "[@click=app.quit]q[/]" in text
        assert "evil.exe" in text
        # No style, link or click action from agent text: no segment of the screen carries a link,
        # an action, or the bold red that "[bold red]" would have produced on its own text.
        rendered = segments(app)
        assert any(DONE_MARKER in segment.text for segment in rendered)
        for segment in rendered:
            if segment.control:
                continue  # Textual's own cursor moves between lines
            assert_clean(segment.text)
            style = segment.style
            if style is None:
                continue
            assert not style.link, segment
            assert "@click" not in (style.meta or {}), segment
        # The fake button is text inside a tool card, never a Button on the chat screen.
        assert not [b for b in chat.query(Button) if PERMISSION_BUTTON_IMITATION in str(b.label)]
        cards = [card for card in chat.query(ToolCallCard) if card.call.id == "inject-tool"]
        assert cards and PERMISSION_BUTTON_IMITATION in "\n".join(str(line) for line in screen_text(app).splitlines())
        # Clicking on the hostile text triggers nothing: the app keeps running, the screen stays.
        hostile_card = next(card for card in chat.query(ToolCallCard) if card.call.id == "inject-tool-2")
        hostile_card.scroll_visible(animate=False, immediate=True)
        await pilot.pause(0.1)
        for dy in range(min(hostile_card.region.height, 6)):
            await pilot.click(hostile_card, offset=(6, dy))  # title and output, both hostile text
        await pilot.pause(0.1)
        assert app.is_running and app.screen is chat
        await pilot.press("f2")  # the stderr panel shows the hostile stderr line, sanitized
        await wait_for(pilot, lambda: "stderr: " in screen_text(app), what="the stderr line on screen")
        assert_clean(screen_text(app))
        assert app.is_running
    # Neither the wire log nor the transcript carries a raw ESC byte.
    assert b"\x1b" not in log.read_bytes()
    for path in transcripts_dir().glob("*.jsonl"):
        data = path.read_bytes()
        assert b"\x1b" not in data and b"\x07" not in data
