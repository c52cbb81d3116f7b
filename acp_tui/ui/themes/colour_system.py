"""How many colours to send the terminal: truecolor where it shows them, else 256 or 16; none with NO_COLOR.

Rich (under Textual) reads `COLORTERM` (`truecolor`/`24bit`) and the colour count at the end of `TERM`
(`xterm-256color`); anything else gets 16 colours. That misses terminals that show truecolor but say so
only by name (`TERM=xterm-kitty`, `xterm-ghostty`, `wezterm`, `alacritty`, `foot`; `TERM_PROGRAM=iTerm.app`,
`vscode`, `WezTerm`, `ghostty`), and tmux, which sets `TERM=tmux-256color` and passes `COLORTERM` on only
when its server was started with it. Inside tmux, `COLORTERM` decides when it is set; when it is not,
tmux itself is asked whether the attached terminal takes RGB colour (`#{client_termfeatures}` holds `RGB`
when tmux forwards 24-bit colour; without it tmux would turn truecolor into its own 256 colours anyway).

`NO_COLOR` (any value, https://no-color.org) is Textual's: it draws in greys and leaves the terminal's
own colours. `TEXTUAL_COLOR_SYSTEM`, when set, is the user's choice and is left alone. In 16 colours the
app starts with the `acp-ansi` palette (the terminal's own ANSI colours) unless a theme was chosen.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from typing import Final, Literal

__all__ = ["ColourSystem", "colour_system", "tmux_client_features"]

ColourSystem = Literal["truecolor", "256", "standard"]

#: `TERM` names (or their start) of terminals that show 24-bit colour but do not all set `COLORTERM`.
TRUECOLOR_TERMS: Final = ("xterm-kitty", "xterm-ghostty", "ghostty", "wezterm", "alacritty", "foot", "contour", "rio")
#: `TERM_PROGRAM` (and iTerm2's `LC_TERMINAL`) values of terminals that show 24-bit colour.
TRUECOLOR_PROGRAMS: Final = frozenset({"iTerm.app", "iTerm2", "WezTerm", "ghostty", "vscode", "Hyper", "Tabby", "rio"})


def tmux_client_features(environ: Mapping[str, str]) -> str:
    """The features tmux knows the attached terminal has (`RGB,title,…`); "" when tmux cannot say."""
    tmux = shutil.which("tmux", path=environ.get("PATH"))
    if tmux is None:
        return ""
    try:
        done = subprocess.run(
            [tmux, "display-message", "-p", "#{client_termfeatures}"],
            capture_output=True,
            text=True,
            timeout=1.0,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def colour_system(
    environ: Mapping[str, str], tmux_features: Callable[[Mapping[str, str]], str] = tmux_client_features
) -> ColourSystem | None:
    """The colour system to use, or None to leave it to Rich's detection (which then gives 256 for
    `*-256color` terminals and 16 otherwise)."""
    if environ.get("TEXTUAL_COLOR_SYSTEM", "auto") != "auto":
        return None  # the user chose
    term = environ.get("TERM", "").strip().lower()
    if not term or term == "dumb":
        return None
    if environ.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return "truecolor"
    if term.startswith(TRUECOLOR_TERMS):
        return "truecolor"
    if environ.get("TERM_PROGRAM") in TRUECOLOR_PROGRAMS or environ.get("LC_TERMINAL") in TRUECOLOR_PROGRAMS:
        return "truecolor"
    if environ.get("TMUX") and "RGB" in tmux_features(environ).split(","):
        return "truecolor"
    return None
