"""The tab bar drawn by Textual under every shipped theme, at widths where the tabs fit and where they do not.

The bar's pure layout is tested in tests/unit/test_tabs_core.py with no theme; here its styles meet the
theme's real variables, which are not all colours Rich can parse (`$text-muted` is `auto 60%`): a style the
terminal cannot draw would end the whole app the first time the bar is drawn that narrow.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from acp_tui.ui.themes import load_shipped_themes
from acp_tui.ui.widgets.icons import EXTRA_THEME_VARIABLES
from acp_tui.ui.widgets.tab_bar import TabBar, TabLabel, TabState

#: Ours, and Textual's own that the palette offers too (`ansi-dark`: the terminal's ANSI colours).
THEMES = [theme.name for theme in load_shipped_themes()] + ["textual-dark", "ansi-dark", "ansi-light"]
#: Seven tabs, every state, the fourth shown: at 20 columns only a window around it fits (`‹ … ›`).
STATES: tuple[TabState, ...] = ("idle", "working", "waiting", "failed", "idle", "working", "waiting")
LABELS = tuple(
    TabLabel(number, f"conversation {number}", state, unseen=number % 2 == 0, current=number == 4)
    for number, state in enumerate(STATES, 1)
)


class BarApp(App[None]):
    def __init__(self, theme: str) -> None:
        super().__init__()
        for shipped in load_shipped_themes():
            self.register_theme(shipped)
        self.theme = theme

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(EXTRA_THEME_VARIABLES)

    def compose(self) -> ComposeResult:
        yield TabBar(id="tab-bar")

    def on_mount(self) -> None:
        self.query_one(TabBar).show_tabs(LABELS)


def top_line(app: App[None]) -> str:
    return app.screen._compositor.render_strips()[0].text


@pytest.mark.asyncio
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width", [160, 80, 20])
async def test_the_bar_draws_under_every_theme_at_every_width(theme: str, width: int) -> None:
    app = BarApp(theme)
    async with app.run_test(size=(width, 3)) as pilot:
        await pilot.pause()
        line = top_line(app)
        assert " 4 ✗ " in line, line  # the shown tab, always
        if width == 20:
            assert line.startswith("‹ ") and line.rstrip().endswith("›") and " 1 ● " not in line, line
        else:
            assert all(f" {label.number} " in line for label in LABELS), line
    assert app.return_code in (None, 0), "the app ended on an error"
