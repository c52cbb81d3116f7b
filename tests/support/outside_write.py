"""The outside-the-project write dialog: its request, a host app and the file-access record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch
from acp_tui.services.files import OutsideWrite
from acp_tui.session.local_events import FileAccessed
from acp_tui.session.model import FILE_ACCESS, FileAccess, SessionState
from acp_tui.session.reducer import apply
from acp_tui.ui.dialogs.outside_write import OutsideWriteScreen
from acp_tui.ui.key_order import KeysInOrderApp
from acp_tui.ui.themes import load_shipped_themes
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES
from tests.support.wait import until

ARM = 0.2


PROJECT = Path("/work/project")


PATCH = (
    "diff --git a/etc/hosts b/etc/hosts\n--- a/etc/hosts\n+++ b/etc/hosts\n@@ -1,2 +1,3 @@\n"
    " 127.0.0.1 localhost\n-::1 localhost\n+::1 localhost ip6-localhost\n+10.0.0.5 build-box\n"
)


def outside_write(**changes: Any) -> OutsideWrite:
    fields: dict[str, Any] = {
        "path": Path("/etc/hosts"),
        "cwd": PROJECT,
        "old_text": "127.0.0.1 localhost\n::1 localhost\n",
        "new_text": "127.0.0.1 localhost\n::1 localhost ip6-localhost\n10.0.0.5 build-box\n",
        "created": False,
        "reason": "outside",
        "diff": Diff(
            changes=[DiffChange(operation="modify", path="/etc/hosts")], patch=DiffPatch(format="git_patch", text=PATCH)
        ),
    }
    fields.update(changes)
    return OutsideWrite(**fields)


class DialogApp(KeysInOrderApp[None]):
    """A conversation-like scroller under the dialog, themed like the real app."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[bool | None] = []
        for theme in load_shipped_themes():
            self.register_theme(theme)
        self.theme = "acp-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **EXTRA_THEME_VARIABLES}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="chat"):
            for n in range(60):
                yield Static(f"conversation line {n}")

    def ask(self, write: OutsideWrite, arm_delay: float = ARM) -> OutsideWriteScreen:
        screen = OutsideWriteScreen(write, arm_delay=arm_delay)
        self.push_screen(screen, callback=self.results.append)
        return screen


async def wait_for(pilot: Pilot[None], condition: Any, what: str) -> None:
    await until(condition, what, pilot=pilot)


def _access(state: SessionState, **fields: Any) -> FileAccess:
    apply(state, FileAccessed(**{"cwd": str(PROJECT), **fields}))
    entity = state.entities[(FILE_ACCESS, str(state.file_access_count))]
    assert isinstance(entity, FileAccess)
    return entity
