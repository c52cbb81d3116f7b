"""Packaging and architecture guards: every package is installed, the core never imports the UI."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.support.paths import REPO


def test_every_package_under_acp_tui_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(REPO).parts) for init in (REPO / "acp_tui").rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


def test_core_imports_neither_textual_nor_rich() -> None:
    """protocol <- session <- agent (and the demo, cli) stay UI-free (docs/style.md, "Layering")."""
    code = (
        "import sys, importlib, pkgutil\n"
        "import acp_tui.protocol, acp_tui.session, acp_tui.agent\n"
        "for pkg in (acp_tui.protocol, acp_tui.session, acp_tui.agent):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "import acp_tui.cli, acp_tui.config, acp_tui.demo\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "", f"the core pulled in: {out.stdout.strip()}"


def test_shipped_themes_have_a_dark_and_a_light_palette() -> None:
    from acp_tui.ui.themes import load_shipped_themes

    themes = {theme.name: theme for theme in load_shipped_themes()}
    assert {"acp-dark", "acp-light"} <= set(themes)
    assert themes["acp-dark"].dark and not themes["acp-light"].dark
    assert themes["acp-dark"].variables["diff-added"].startswith("#")


def test_the_official_schemas_ship_with_their_provenance() -> None:
    """`acp-tui check` reads them as package data (acp_tui/headless/schema.py); pyproject must ship them."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "schemas/*.json" in data["acp_tui.headless"] and "schemas/PROVENANCE" in data["acp_tui.headless"]
    folder = REPO / "acp_tui" / "headless" / "schemas"
    assert {p.name for p in folder.glob("*.json")} == {"acp-v1.schema.json", "acp-v2.schema.json"}
    assert "agentclientprotocol/agent-client-protocol" in (folder / "PROVENANCE").read_text()
