#!/usr/bin/env python3
"""Textual's own start-up floor for bench/startup_speed.py (`--floor`): the smallest app that shows what acp-tui's
first screen shows (a title line, a text area to type in, a status line saying "● ready"), with no agent.

Arguments are ignored (the benchmark appends the agent's command line to every client)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static, TextArea


class Floor(App[None]):
    """A title, a prompt, a status line."""

    def compose(self) -> ComposeResult:
        yield Static("floor")
        yield TextArea()
        yield Static("● ready")


if __name__ == "__main__":
    Floor().run()
