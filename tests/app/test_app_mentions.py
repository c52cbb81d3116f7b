"""`@` mentions end to end: the picker and completion in the prompt (pilot), collapsed pastes and pasted
image paths, and the blocks real agents receive (the TypeScript SDK agent, the demo agent; v2 and v1).

The pilot tests drive a small app holding the prompt and the picker exactly as the chat screen composes
them (`FilePicker` above `PromptInput(file_picker=...)`); the agent tests send what
`build_prompt_blocks` makes through a real `AgentSession` and look at what the agent got.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from acp_tui.agent.session import AgentSession
from acp_tui.agent.session_events import SessionEvent
from acp_tui.agent.trace import Direction
from acp_tui.context.blocks import PromptBlocks, build_prompt_blocks, disallowed_blocks
from acp_tui.context.capabilities import PromptCapabilities
from acp_tui.context.index import FileIndex
from acp_tui.context.mentions import Mention, PromptSubmission
from acp_tui.history import PromptHistory
from acp_tui.protocol.v2 import EmbeddedResource, ImageContent, ResourceLink, TextContent
from acp_tui.ui.widgets.file_picker import FilePicker
from acp_tui.ui.widgets.prompt_context import MENTION_HIGHLIGHT
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.support.peers import TsSdkPeers
from tests.support.schema_check import validate_client_message
from tests.support.wait import until as wait_until

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(64)


def make_project(root: Path) -> Path:
    for relative, data in {
        "src/app.py": b"print('hi')\n",
        "src/widgets/button.py": b"class Button: ...\n",
        "docs/guide.md": b"# Guide\n",
        "shot.png": PNG,
        "README.md": b"# readme\n",
    }.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


class MentionApp(App[None]):
    """The prompt and its picker, composed as the chat screen does; submissions are collected."""

    def __init__(self, root: Path, index: FileIndex | None = None) -> None:
        super().__init__()
        self.root = root
        self.index = index
        self.submitted: list[PromptInput.Submitted] = []

    def compose(self) -> ComposeResult:
        picker = FilePicker(self.root, id="file-picker", index=self.index)
        yield picker
        yield PromptInput(PromptHistory(None), id="prompt", file_picker=picker)

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.submitted.append(event)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def picker(self) -> FilePicker:
        return self.query_one(FilePicker)


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    await wait_until(condition, what, pilot=pilot, timeout=timeout)


@asynccontextmanager
async def mention_app(root: Path, index: FileIndex | None = None) -> AsyncIterator[tuple[MentionApp, Pilot[Any]]]:
    app = MentionApp(root, index)
    async with app.run_test(size=(100, 30)) as pilot:
        app.prompt.focus()
        yield app, pilot


async def type_keys(pilot: Pilot[Any], text: str) -> None:
    keys = {" ": "space", "@": "at", "/": "slash", ".": "full_stop", "_": "underscore", '"': "quotation_mark"}
    await pilot.press(*[keys.get(char, char) for char in text])


def shown(app: MentionApp) -> list[str]:
    return [match.path for match in app.picker.shown]


async def ready_picker(app: MentionApp, pilot: Pilot[Any]) -> None:
    await until(
        pilot,
        lambda: (
            app.picker.index is not None
            and app.picker.index.corpus.complete
            and app.picker.is_open
            and app.picker.shown
        ),
        "the index and the picker",
    )


def chips(app: MentionApp, row: int = 0) -> list[str]:
    line = app.prompt.document.get_line(row).encode()
    return [
        line[start:end].decode()
        for start, end, name in app.prompt._highlights.get(row, [])
        if name == MENTION_HIGHLIGHT and end is not None
    ]


# -- the picker ------------------------------------------------------------------------------------------


async def test_at_opens_the_picker_and_each_keystroke_filters_it(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "look at ")
        assert not app.picker.is_open
        await type_keys(pilot, "@")
        await ready_picker(app, pilot)
        assert shown(app)[:3] == ["src/", "docs/", "shot.png"]
        await type_keys(pilot, "but")
        await until(pilot, lambda: shown(app) == ["src/widgets/button.py"], "filtered to button.py")
        await pilot.press("backspace", "backspace", "backspace")
        await type_keys(pilot, "gui")
        await until(pilot, lambda: shown(app)[:1] == ["docs/guide.md"], "filtered to the guide")
        await type_keys(pilot, "zzz")
        await until(pilot, lambda: app.picker.is_open and not app.picker.shown, "no match")
        assert app.picker.border_subtitle == ""
        await pilot.press("space")
        assert not app.picker.is_open  # the word ended


async def test_up_down_move_tab_completes_a_file_as_a_chip(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "fix @py")
        await ready_picker(app, pilot)
        assert shown(app)[:2] == ["src/app.py", "src/widgets/button.py"]
        await pilot.press("down")
        assert app.picker.highlighted_match is not None
        assert app.picker.highlighted_match.path == "src/widgets/button.py"
        await pilot.press("up", "up")  # wraps to the last row, then back
        await pilot.press("down")
        assert app.picker.highlighted == 0
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "fix @src/app.py "
        assert not app.picker.is_open
        assert chips(app) == ["@src/app.py"]


async def test_enter_completes_then_sends_text_and_mentions(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "read @READ")
        await ready_picker(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.prompt.text == "read @README.md " and not app.submitted
        await type_keys(pilot, "and @src/app.py")
        await until(pilot, lambda: shown(app)[:1] == ["src/app.py"], "the typed path")
        await pilot.press("enter")  # the typed token is already complete: Enter sends
        await pilot.pause()
        [event] = app.submitted
        assert event.text == "read @README.md and @src/app.py"
        assert event.submission == PromptSubmission(
            "read @README.md and @src/app.py",
            (Mention("README.md", "@README.md"), Mention("src/app.py", "@src/app.py")),
        )


async def test_tab_descends_into_a_directory_and_enter_mentions_it(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "@sr")
        await ready_picker(app, pilot)
        assert shown(app)[0] == "src/"
        await pilot.press("tab")
        await until(pilot, lambda: app.prompt.text == "@src/" and app.picker.is_open, "descended into src/")
        await until(pilot, lambda: "src/widgets/" in shown(app), "the directory's entries")
        await type_keys(pilot, "wid")
        await until(pilot, lambda: shown(app)[:1] == ["src/widgets/"], "the subdirectory")
        await pilot.press("enter")
        await pilot.pause()
        assert app.prompt.text == "@src/widgets/ " and not app.picker.is_open
        assert chips(app) == ["@src/widgets/"]


async def test_escape_closes_until_the_word_ends(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "@do")
        await ready_picker(app, pilot)
        await pilot.press("escape")
        assert not app.picker.is_open
        await type_keys(pilot, "cs")
        await pilot.pause()
        assert not app.picker.is_open and app.prompt.text == "@docs"
        await type_keys(pilot, " @")
        await until(pilot, lambda: app.picker.is_open, "a new @ word reopens the picker")


async def test_backspace_removes_a_completed_mention_whole(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "see @gui")
        await ready_picker(app, pilot)
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == "see @docs/guide.md "
        await pilot.press("backspace")
        await pilot.pause()
        assert app.prompt.text == "see @docs/guide.md" and not app.picker.is_open  # a unit: no reopening
        await pilot.press("backspace")
        await pilot.pause()
        assert app.prompt.text == "see "
        await type_keys(pilot, "@READ")
        await ready_picker(app, pilot)
        await pilot.press("tab")
        await pilot.press("home")
        await pilot.press("right", "right", "right", "right")  # before the token
        await pilot.press("delete")
        await pilot.pause()
        assert app.prompt.text == "see  "


async def test_a_click_on_a_row_completes_it(tmp_path: Path) -> None:
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "@md")
        await ready_picker(app, pilot)
        target = shown(app).index("docs/guide.md")
        app.picker.post_message(app.picker.OptionSelected(app.picker, app.picker.get_option_at_index(target), target))
        await pilot.pause()
        assert app.prompt.text == "@docs/guide.md "


async def test_typing_never_waits_for_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    release = threading.Event()
    index = FileIndex(tmp_path)
    original = index._walk

    def slow_walk(*args: Any) -> Any:
        assert release.wait(20)
        return original(*args)

    monkeypatch.setattr(index, "_walk", slow_walk)
    async with mention_app(tmp_path, index) as (app, pilot):
        await type_keys(pilot, "@app")
        await pilot.pause()
        assert app.prompt.text == "@app"  # every key went in while the walk had not even started
        assert app.picker.is_open and not app.picker.shown
        assert (app.picker.border_subtitle or "").startswith("indexing…")
        release.set()
        await until(pilot, lambda: shown(app)[:1] == ["src/app.py"], "results once the index is ready")
        await until(pilot, lambda: app.picker.border_subtitle == "", "the indexing note gone")


async def test_hostile_names_show_escaped_and_complete_to_exact_paths(tmp_path: Path) -> None:
    make_project(tmp_path)
    evil = "evil\x1b]52;c;aGk=\x07\nname\u202e.txt"
    (tmp_path / evil).write_text("x")
    async with mention_app(tmp_path) as (app, pilot):
        await type_keys(pilot, "@evil")
        await ready_picker(app, pilot)
        assert shown(app) == [evil]
        row = app.picker.get_option_at_index(0).prompt
        plain_row = str(row)
        assert "\x1b" not in plain_row and "\n" not in plain_row and "\u202e" not in plain_row
        assert "\\x1b" in plain_row and "\\n" in plain_row and "\\u202e" in plain_row
        await pilot.press("tab")
        await pilot.pause()
        assert app.prompt.text == '@"evil\\x1b]52;c;aGk=\\x07\\nname\\u202e.txt" '
        assert app.prompt.text.isprintable()
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted[0].submission.mentions[0].path == evil


# -- pastes ----------------------------------------------------------------------------------------------


async def test_a_huge_paste_is_collapsed_removed_whole_and_expanded_on_send(tmp_path: Path) -> None:
    huge = "\n".join(f"log line {n}" for n in range(2345))
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        await type_keys(pilot, "why ")
        app.post_message(events.Paste(huge))
        await pilot.pause()
        assert app.prompt.text == "why [pasted 2,345 lines]"
        assert chips(app) == ["[pasted 2,345 lines]"]
        await pilot.press("backspace")
        await pilot.pause()
        assert app.prompt.text == "why "
        app.post_message(events.Paste(huge))
        await pilot.pause()
        await type_keys(pilot, " thanks")
        app.post_message(events.Paste("short paste"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted[0].text == f"why {huge} thanksshort paste"


@pytest.mark.parametrize("line_end", ["\r\n", "\r"], ids=["crlf", "cr"])
async def test_a_huge_paste_with_cr_line_ends_is_collapsed_and_sent_with_lf(tmp_path: Path, line_end: str) -> None:
    """tmux and many terminals paste with CR (or CRLF) line ends: the paste counts its lines all the same."""
    lines = [f"log line {n}" for n in range(120)]
    async with mention_app(make_project(tmp_path)) as (app, pilot):
        app.post_message(events.Paste(line_end.join(lines)))
        await pilot.pause()
        assert app.prompt.text == "[pasted 120 lines]"
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted[0].text == "\n".join(lines)


async def test_a_pasted_image_path_attaches_the_image(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    outside = tmp_path / "Screen Shot.png"
    outside.write_bytes(PNG)
    async with mention_app(root) as (app, pilot):
        app.post_message(events.Paste(f"'{outside}'"))
        await pilot.pause()
        assert app.prompt.text == f'@"{outside}" '
        app.post_message(events.Paste((root / "shot.png").as_uri()))
        await pilot.pause()
        assert app.prompt.text.endswith(" @shot.png ")
        app.post_message(events.Paste(str(root / "README.md")))  # not an image: stays text
        await pilot.pause()
        assert app.prompt.text.endswith(f"@shot.png {root / 'README.md'}")
        await pilot.press("enter")
        await pilot.pause()
        mentions = app.submitted[0].submission.mentions
        assert [m.path for m in mentions] == [str(outside), "shot.png"]
        result = build_prompt_blocks(app.submitted[0].submission, PromptCapabilities(image=True), root)
        assert isinstance(result, PromptBlocks)
        assert [type(b).__name__ for b in result.blocks] == ["TextContent", "ImageContent", "ImageContent"]


# -- what real agents receive -----------------------------------------------------------------------------


class Recorder:
    """Keeps what the session sent and every event, with a condition wait."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.events: list[SessionEvent] = []
        self._changed = asyncio.Event()

    def record(self, direction: Direction, payload: Any) -> None:
        if direction == "->":
            self.sent.append(json.loads(bytes(payload)))

    def session_event(self, session: AgentSession, event: SessionEvent) -> None:
        self.events.append(event)
        self._changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 30) -> None:
        async def wait() -> None:
            while not condition():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)

    def prompts(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("method") == "session/prompt"]


def idle(session: AgentSession) -> Callable[[], bool]:
    return lambda: (
        session.state.foreground.state == "idle"
        and not session.state.foreground.busy
        and session.state.foreground.stop_reason is not None
    )


async def send_mentions(
    session: AgentSession, recorder: Recorder, root: Path, text: str, paths: list[str]
) -> tuple[PromptCapabilities, PromptBlocks, str]:
    """Build the blocks as the screen would, check them against the negotiated capabilities, send them."""
    capabilities = PromptCapabilities.from_init(session.init, session.version)
    mentions = tuple(Mention.of(path) for path in paths)
    submission = PromptSubmission(" ".join([text, *(m.token for m in mentions)]), mentions)
    result = build_prompt_blocks(submission, capabilities, root)
    assert isinstance(result, PromptBlocks)
    assert disallowed_blocks(result.blocks, capabilities) == []
    message_id = await session.prompt(result.blocks)
    await recorder.until(idle(session))
    [sent] = recorder.prompts()[-1:]
    validate_client_message(sent, session.version or 2)
    return capabilities, result, message_id


def agent_texts(session: AgentSession) -> str:
    return "\n".join(str(getattr(e, "text", "")) for e in session.state.entities.values())


@pytest.mark.parametrize("version", [2, 1])
async def test_the_typescript_sdk_agent_receives_links_within_its_baseline(
    tmp_path: Path, version: int, ts_sdk_peers: TsSdkPeers, peer_home_env: dict[str, str]
) -> None:
    root = make_project(tmp_path / "project")
    recorder = Recorder()
    session = AgentSession(
        ts_sdk_peers.dual_version_agent,
        cwd=root,
        env=peer_home_env,
        trace=recorder,
        listener=recorder,
        protocol=version,
    )
    try:
        await session.start()
        assert session.version == version
        capabilities, result, message_id = await send_mentions(
            session, recorder, root, "look", ["src/app.py", "shot.png", "docs/"]
        )
        assert capabilities == PromptCapabilities()  # it advertises no prompt capabilities: links only
        assert [type(b) for b in result.blocks] == [TextContent, ResourceLink, ResourceLink, ResourceLink]
        assert session.state.foreground.stop_reason == "end_turn"  # its SDK validated the prompt and took it
        sent = recorder.prompts()[-1]["params"]["prompt"]
        assert sent[1] == {
            "type": "resource_link",
            "uri": (root / "src/app.py").as_uri(),
            "name": "src/app.py",
            "mimeType": "text/x-python",
            "size": 12,
        }
        if version == 2:
            # The v2 example inserts the prompt as its SDK parsed it: the user message is what arrived.
            user = session.state.message("user_message", message_id)
            assert user is not None
            assert user.content.blocks == result.blocks
    finally:
        await session.shutdown()


@pytest.mark.parametrize("version", [2, 1])
async def test_the_demo_agent_receives_embedded_files_and_images_and_says_so(tmp_path: Path, version: int) -> None:
    root = make_project(tmp_path / "project")
    recorder = Recorder()
    session = AgentSession(
        [sys.executable, "-m", "acp_tui.demo", "--speed", "0"],
        cwd=root,
        trace=recorder,
        listener=recorder,
        protocol=version,
    )
    try:
        await session.start()
        capabilities, result, _ = await send_mentions(session, recorder, root, "context", ["src/app.py", "shot.png"])
        assert capabilities == PromptCapabilities(embedded_context=True, image=True)
        assert [type(b) for b in result.blocks] == [TextContent, EmbeddedResource, ImageContent]
        said = agent_texts(session)
        app_uri = (root / "src/app.py").as_uri()
        assert f"I received: text, resource {app_uri} text/x-python 12 characters, image image/png 80 B" in said
    finally:
        await session.shutdown()


async def test_the_first_rows_use_the_width_the_picker_opens_with_not_a_cut_to_twenty(tmp_path: Path) -> None:
    long = "src/a-rather-long-folder-name/and-a-longer-file-name-here.py"
    (tmp_path / long).parent.mkdir(parents=True)
    (tmp_path / long).write_text("x\n")
    index = FileIndex(tmp_path)
    index.start()
    await asyncio.to_thread(index.wait, 10)  # complete before the first `@`: no refresh comes to redraw the rows
    async with mention_app(tmp_path, index) as (app, pilot):
        await type_keys(pilot, "@")  # the rows are drawn as it opens, before it has been laid out
        await ready_picker(app, pilot)

        def rows() -> list[str]:
            return [app.picker.get_option_at_index(n).prompt.plain for n in range(app.picker.option_count)]  # type: ignore[union-attr]

        await until(pilot, lambda: rows() == ["src/", "src/a-rather-long-folder-name/", long], "the whole paths")
