"""A host app for the elicitation dialogs, the questions they show, and opening one (armed)."""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.protocol.elicitation import FormElicitation, UrlElicitation, decode_create
from acp_tui.services.elicitation import (
    FormQuestion,
    UrlQuestion,
)
from acp_tui.services.elicitation_form import FormModel, build_form
from acp_tui.services.elicitation_url import describe_url
from acp_tui.ui.key_order import KeysInOrderApp
from acp_tui.ui.themes import load_shipped_themes
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES
from tests.support.elicitation_form import form_params
from tests.support.wait import armed_screen


class Host(KeysInOrderApp[None]):
    """A conversation-like scroller under the dialog, themed like the real app."""

    def __init__(self, theme: str = "acp-dark") -> None:
        super().__init__()
        self._theme_name = theme
        self.results: list[Any] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(EXTRA_THEME_VARIABLES)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="chat"):
            for n in range(60):
                yield Static(f"conversation line {n}")

    def on_mount(self) -> None:
        for theme in load_shipped_themes():
            self.register_theme(theme)
        self.theme = self._theme_name


def form_question(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> FormQuestion:
    params = form_params(properties, required, **extra)
    params["message"] = "I need a few details to set up the project.\nNothing leaves this machine."
    params["requestedSchema"]["title"] = "Project settings"
    raw = json.dumps(params).encode()
    request = decode_create(raw, 2)
    assert isinstance(request, FormElicitation)
    form = build_form(request.requested_schema)
    assert isinstance(form, FormModel)
    return FormQuestion(1, request.message, form, request.scope, 2, raw)


def url_question(url: str, message: str = "Sign in to GitHub so I can open the pull request.") -> UrlQuestion:
    params = {"sessionId": "s1", "message": message, "mode": "url", "elicitationId": "e1", "url": url}
    raw = json.dumps(params).encode()
    request = decode_create(raw, 2)
    assert isinstance(request, UrlElicitation)
    return UrlQuestion(1, request.message, request.url, describe_url(request.url), "e1", request.scope, 2, raw)


async def open_dialog(app: Host, pilot: Pilot[None], screen: Any, *, arm: bool = True) -> None:
    app.push_screen(screen, callback=app.results.append)
    await pilot.pause()
    if arm:
        await armed_screen(pilot, screen)
