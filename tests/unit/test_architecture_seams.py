"""Guards for the core's seams (issue 39): one list of model changes, and the two hubs kept well under the cap.

- `session/changes.py`'s `Change` union is the one list of model changes: every change record is in it, and no
  module copies it as an import list (a dispatcher takes the module, `changes as ch`, and matches on it with
  `assert_never`, so a new change is a type error where it is not handled, and no list to edit elsewhere).
- `AgentSession` and `SessionController` were at 38 of the 40 methods every class may have; they were split along
  their seams and get tighter caps of their own, so the next feature lands in a part, not in the hub.
"""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from acp_tui.session import changes

PACKAGE = Path(__file__).resolve().parents[2] / "acp_tui"

#: a module that names more of the changes than this takes the module instead (`from acp_tui.session import changes`)
MAX_CHANGE_NAMES = 10

#: the hubs' own caps (the general one is 40, tests/unit/test_architecture.py)
HUB_CAPS = {
    ("agent/session.py", "AgentSession"): 30,
    ("controller/controller.py", "SessionController"): 30,
}


def test_every_change_record_is_in_the_one_list() -> None:
    records = {
        value
        for value in vars(changes).values()
        if isinstance(value, type) and issubclass(value, changes._Change) and value is not changes._Change
    }
    listed = set(typing.get_args(changes.Change))
    assert records == listed, f"missing from `Change`: {sorted(r.__name__ for r in records - listed)}"
    assert set(changes.__all__) == {r.__name__ for r in records} | {"Change"}


def _change_imports(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return max(
        (
            len(node.names)
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "acp_tui.session.changes"
        ),
        default=0,
    )


def test_no_module_copies_the_list_of_changes() -> None:
    copies = {
        str(path.relative_to(PACKAGE)): count
        for path in sorted(PACKAGE.rglob("*.py"))
        if (count := _change_imports(path)) > MAX_CHANGE_NAMES
    }
    assert not copies, f"import `changes as ch` instead of a list of its names: {copies}"


def _methods(path: Path, name: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return sum(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body)


def test_the_hubs_stay_well_under_the_cap() -> None:
    over = {
        f"{name} ({module})": (count, cap)
        for (module, name), cap in HUB_CAPS.items()
        if (count := _methods(PACKAGE / module, name)) > cap
    }
    assert not over, f"methods over the hub's cap (split a part off along its seam): {over}"


def test_the_guards_see_what_they_should(tmp_path: Path) -> None:
    copy = tmp_path / "copy.py"
    names = ", ".join(sorted(changes.__all__))
    copy.write_text(f"from acp_tui.session.changes import ({names})\n", encoding="utf-8")
    assert _change_imports(copy) == len(changes.__all__) > MAX_CHANGE_NAMES
    hub = tmp_path / "hub.py"
    hub.write_text("class Hub:\n    def a(self): ...\n    async def b(self): ...\n    x = 1\n", encoding="utf-8")
    assert _methods(hub, "Hub") == 2


#: what the layers under the controller raise; the UI catches the controller's `ControllerError` instead
BELOW_THE_CONTROLLER = {
    "SessionError",
    "SessionRefused",
    "HandshakeTimeout",
    "AuthRequired",
    "RpcError",
    "ConnectionClosed",
}


def _caught_from_below(path: Path) -> list[str]:
    """The names of errors from under the controller a module imports or names in an `except`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name in BELOW_THE_CONTROLLER
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            found += [n.id for n in ast.walk(node.type) if isinstance(n, ast.Name) and n.id in BELOW_THE_CONTROLLER]
    return found


def test_the_ui_catches_one_error_from_the_controller() -> None:
    leaks = {
        str(path.relative_to(PACKAGE)): names
        for path in sorted((PACKAGE / "ui").rglob("*.py"))
        if (names := _caught_from_below(path))
    }
    assert not leaks, f"catch `acp_tui.controller.errors.ControllerError` instead: {leaks}"


def test_the_error_guard_sees_what_it_should(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from acp_tui.agent.session import SessionError\ntry:\n    pass\nexcept (RpcError, KeyError):\n    pass\n",
        encoding="utf-8",
    )
    assert _caught_from_below(module) == ["SessionError", "RpcError"]
