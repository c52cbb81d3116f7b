"""The package's import graph keeps its shape: no cycles, one-way layers, Textual and Rich only in `ui/`.

The graph is read from the source (the AST of every module under acp_tui/), not from `sys.modules`, so a
dependency counts whether or not a test happens to import it. Every import counts wherever it is written:

- at the top of a module;
- inside a function: a deferred import is still a dependency, and the usual way a cycle hides;
- under `if TYPE_CHECKING:`: it costs nothing at run time, but the module's signatures name the other
  module's types, so the design depends on it. Exempting it would let UI types leak into the core through
  annotations and would hide cycles that a later run-time import completes.

`from pkg import name` is an edge to `pkg.name` when that is a module, else to `pkg` (its `__init__`).
Importing a submodule does not count as importing its parent package (Python runs the parent's `__init__`
first, but the design does not depend on it).

The layers are the ones in docs/style.md ("Layering"); `LAYERS` below is the executable form. A module may
import its own layer and any layer of lower rank; layers of equal rank are independent of one another. A new
top-level module or package must be given a layer here (`test_every_module_has_a_layer`).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.support.paths import REPO

PACKAGE = "acp_tui"
#: Third-party UI toolkits: terminal rendering is the UI's business alone.
UI_TOOLKITS = frozenset({"textual", "rich"})


@dataclass(frozen=True)
class Layer:
    """One row of the layer table: a rank, the modules it holds (by dotted prefix) and why it sits there."""

    rank: int
    name: str
    members: tuple[str, ...]
    reason: str
    #: no module outside this layer may import it (a separate program, or an entry point)
    sealed: bool = False

    def holds(self, module: str) -> bool:
        """True when `module` is one of the members or lies below one of them."""
        return any(
            module == member or (member != PACKAGE and module.startswith(member + ".")) for member in self.members
        )


LAYERS: tuple[Layer, ...] = (
    Layer(
        0,
        "base",
        (
            "acp_tui",
            "acp_tui.paths",
            "acp_tui.config",
            "acp_tui.mcp_servers",
            "acp_tui.catalogue",
            "acp_tui.launch",
            "acp_tui.launch_resolve",
            "acp_tui.sanitize",
            "acp_tui.ansi",
            "acp_tui.history",
            "acp_tui.lineage",
            "acp_tui.secrets",
            "acp_tui.path_text",
            "acp_tui.sizes",
            "acp_tui.typeahead",
        ),
        "stdlib-only helpers (paths, settings, text hygiene, paths as shown, sizes, secrets, lineages, the typed-ahead Enter) that any "
        "layer may use",
    ),
    Layer(1, "protocol", ("acp_tui.protocol",), "the wire alone: msgspec types, framing, JSON-RPC, codec"),
    Layer(
        1,
        "registry",
        ("acp_tui.registry",),
        "the ACP agent registry: its index, installs into the data folder, the commands they resolved (no UI)",
    ),
    Layer(2, "session", ("acp_tui.session",), "the pure reducer and model: wire updates in, changes out, no I/O"),
    Layer(
        2,
        "demo",
        ("acp_tui.demo",),
        "an agent, not the client: run as `python -m acp_tui.demo`, it shares the wire types only",
        sealed=True,
    ),
    Layer(3, "services", ("acp_tui.services",), "answers to agent->client requests, one per capability, UI-agnostic"),
    Layer(3, "context", ("acp_tui.context",), "prompt context (file index, mentions, blocks): pure, wire-shaped"),
    Layer(3, "transcript", ("acp_tui.transcript",), "records model changes to disk; fed by whoever owns the session"),
    Layer(4, "agent", ("acp_tui.agent",), "one agent process: spawn, connection, AgentSession, dialect (asyncio I/O)"),
    Layer(
        5,
        "controller",
        ("acp_tui.controller",),
        "one agent's life and turns, UI-free, so print mode and tests share it",
    ),
    Layer(6, "ui", ("acp_tui.ui",), "Textual: renders changes and turns keys into intents; the only Textual/Rich user"),
    Layer(6, "headless", ("acp_tui.headless",), "print mode: the controller without Textual, one turn to stdout"),
    Layer(
        7,
        "entry",
        ("acp_tui.cli", "acp_tui.__main__"),
        "argv -> Launch -> the chosen front end; nothing imports the command line",
        sealed=True,
    ),
)

#: The rooms of `acp_tui/ui/` (docs/architecture.md, "ui/"), the same rule one level down: a room imports its
#: own and lower-ranked rooms; rooms of equal rank are independent (a dialog never opens a browser).
UI_ROOMS: tuple[Layer, ...] = (
    Layer(
        0,
        "look",
        ("acp_tui.ui.themes",),
        "palettes, markdown styles, colour depth: what everything else is drawn with",
    ),
    Layer(
        0,
        "input",
        ("acp_tui.ui.key_order", "acp_tui.ui.stop_resume"),
        "the keyboard: every key and paste to the focus, in the order typed, by one reader",
    ),
    Layer(1, "widgets", ("acp_tui.ui.widgets",), "small pieces that render one thing; they know no screen"),
    Layer(
        2,
        "timeline",
        ("acp_tui.ui.timeline",),
        "the conversation: its renderer and the views of its entities (tool calls, diffs, messages…)",
    ),
    Layer(3, "dialogs", ("acp_tui.ui.dialogs",), "modal screens that ask one question and return one answer"),
    Layer(3, "browsers", ("acp_tui.ui.browsers",), "screens to look through something: sessions, notices, help"),
    Layer(4, "chat", ("acp_tui.ui.chat",), "the main screen and what serves it; it opens dialogs and browsers"),
    Layer(5, "tabs", ("acp_tui.ui.tabs",), "several chat screens side by side: the tab host and its commands"),
    Layer(6, "app", ("acp_tui.ui.app",), "the App: themes, bindings, the tabs it hosts"),
)


#: Top-level units whose mutual imports must not form a cycle (rule b); other modules count as themselves.
TOP_LEVEL_PACKAGES = (
    "protocol",
    "session",
    "services",
    "agent",
    "controller",
    "context",
    "transcript",
    "ui",
    "demo",
    "registry",
)
#: The layers that must never reach into the UI (rule d).
CORE = ("protocol", "session", "services", "agent", "controller", "context", "transcript")


# -- reading the graph ---------------------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> Mapping[str, Path]:
    """Every module of the package, by dotted name."""
    return {
        _module_name(path): path for path in sorted((REPO / PACKAGE).rglob("*.py")) if "__pycache__" not in path.parts
    }


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """The package module `name` denotes (its longest existing prefix), or None outside the package."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _imported_names(module: str, source: str, *, is_package: bool) -> Iterator[tuple[str, int]]:
    """Every dotted name `module` imports (absolute), with its line; nested and TYPE_CHECKING ones included."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                yield (f"{base}.{alias.name}" if alias.name != "*" else base), node.lineno


@dataclass(frozen=True)
class Edge:
    """`source` imports `target` at `line` (of the source file)."""

    source: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({_modules()[self.source].relative_to(REPO)}:{self.line})"


@cache
def _graph() -> tuple[tuple[Edge, ...], tuple[tuple[str, str, int], ...]]:
    """(edges between package modules, (module, third-party top-level name, line) for every outside import)."""
    modules = _modules()
    edges: list[Edge] = []
    external: list[tuple[str, str, int]] = []
    for module, path in modules.items():
        source = path.read_text(encoding="utf-8")
        for name, line in _imported_names(module, source, is_package=path.name == "__init__.py"):
            target = _resolve(name, modules) if name.split(".")[0] == PACKAGE else None
            if target is not None and target != module:
                edges.append(Edge(module, target, line))
            elif target is None and name.split(".")[0] != PACKAGE:
                external.append((module, name.split(".")[0], line))
    return tuple(dict.fromkeys(edges)), tuple(dict.fromkeys(external))


def _edges() -> tuple[Edge, ...]:
    return _graph()[0]


def _layer_of(module: str) -> Layer | None:
    """The one layer holding `module` (`acp_tui` itself is in the base; its children are not)."""
    holding = [layer for layer in LAYERS if layer.holds(module)]
    assert len(holding) <= 1, f"{module} is in two layers: {[layer.name for layer in holding]}"
    return holding[0] if holding else None


def _unit(module: str) -> str:
    """The top-level unit of a module: `ui` for acp_tui.ui.widgets.x, `cli` for acp_tui.cli."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member (iterative; no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _cycle_through(component: list[str], graph: Mapping[str, Iterable[str]]) -> list[str]:
    """One concrete cycle inside a strongly connected component, as a closed path, for the message."""
    members = set(component)
    start = component[0]
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child in members and child not in parents:
                    parents[child] = node
                    following.append(child)
        frontier = following
    return component  # unreachable for a real component


def _describe_cycles(graph: Mapping[str, set[str]], why: Mapping[tuple[str, str], Edge]) -> list[str]:
    lines: list[str] = []
    for component in _strongly_connected(graph):
        cycle = _cycle_through(component, graph)
        lines.append(" -> ".join(cycle))
        lines.extend(f"    {why[(a, b)]}" for a, b in zip(cycle, cycle[1:], strict=False))
    return lines


# -- the rules -----------------------------------------------------------------------------------


def test_the_graph_is_read() -> None:
    """Guards the guard: the walk finds the package and the imports this file's rules are about."""
    modules = _modules()
    assert "acp_tui.controller.controller" in modules and "acp_tui.ui.app" in modules
    targets = {(edge.source, edge.target) for edge in _edges()}
    assert ("acp_tui.ui.app", "acp_tui.launch") in targets
    assert ("acp_tui.cli", "acp_tui.ui.app") in targets  # an import inside a function counts
    assert any(module.startswith("acp_tui.ui.") and name == "textual" for module, name, _ in _graph()[1])


def test_the_walk_sees_every_kind_of_import() -> None:
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import acp_tui.protocol.v1 as v1\n"
        "from . import model\n"
        "from ..protocol import codec, v2\n"
        "if TYPE_CHECKING:\n"
        "    from acp_tui.ui.app import AcpApp\n"
        "def later() -> None:\n"
        "    import textual.app\n"
    )
    names = [name for name, _ in _imported_names("acp_tui.session.reducer", source, is_package=False)]
    assert names == [
        "__future__.annotations",
        "typing.TYPE_CHECKING",
        "acp_tui.protocol.v1",
        "acp_tui.session.model",
        "acp_tui.protocol.codec",
        "acp_tui.protocol.v2",
        "acp_tui.ui.app.AcpApp",
        "textual.app",
    ]
    package_relative = [name for name, _ in _imported_names("acp_tui.ui", "from .app import run\n", is_package=True)]
    assert package_relative == ["acp_tui.ui.app.run"]
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert _strongly_connected(graph) == [["a", "b", "c"]]
    assert _cycle_through(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(module for module in _modules() if _layer_of(module) is None)
    assert not unplaced, f"give these modules a layer in LAYERS (tests/unit/test_architecture.py): {unplaced}"


def test_no_import_cycle_between_modules() -> None:
    graph: dict[str, set[str]] = {}
    why: dict[tuple[str, str], Edge] = {}
    for edge in _edges():
        graph.setdefault(edge.source, set()).add(edge.target)
        why.setdefault((edge.source, edge.target), edge)
    problems = _describe_cycles(graph, why)
    assert not problems, "import cycles between modules:\n" + "\n".join(problems)


def test_no_import_cycle_between_top_level_packages() -> None:
    graph: dict[str, set[str]] = {}
    why: dict[tuple[str, str], Edge] = {}
    for edge in _edges():
        source, target = _unit(edge.source), _unit(edge.target)
        if source != target:
            graph.setdefault(source, set()).add(target)
            why.setdefault((source, target), edge)
    problems = _describe_cycles(graph, why)
    assert not problems, "import cycles between top-level packages:\n" + "\n".join(problems)
    assert set(TOP_LEVEL_PACKAGES) <= {_unit(module) for module in _modules()}  # the names above are real


def test_textual_and_rich_only_in_the_ui() -> None:
    ui = next(layer for layer in LAYERS if layer.name == "ui")
    offenders = [
        f"{module} imports {name} ({_modules()[module].relative_to(REPO)}:{line})"
        for module, name, line in _graph()[1]
        if name in UI_TOOLKITS and not ui.holds(module)
    ]
    assert not offenders, "Textual and Rich belong to acp_tui/ui/ only:\n" + "\n".join(offenders)


def test_the_core_never_imports_the_ui() -> None:
    offenders = [str(edge) for edge in _edges() if _unit(edge.source) in CORE and _unit(edge.target) == "ui"]
    assert not offenders, "the core imports the UI:\n" + "\n".join(offenders)


def test_the_ui_never_imports_v1_wire_types() -> None:
    """The v1 adapter hands the UI v2-shaped data; v1 stays in the core (issue 12)."""
    offenders = [
        str(edge)
        for edge in _edges()
        if _unit(edge.source) == "ui" and edge.target.split(".")[:3] == ["acp_tui", "protocol", "v1"]
    ]
    assert not offenders, "acp_tui/ui/ imports acp_tui.protocol.v1:\n" + "\n".join(offenders)


def _offenders(layer_of: Callable[[str], Layer | None]) -> list[str]:
    """Every edge that climbs a rank, joins two peers, or reaches into a sealed layer, under `layer_of`."""
    offenders: list[str] = []
    for edge in _edges():
        source, target = layer_of(edge.source), layer_of(edge.target)
        if source is None or target is None or source is target:
            continue
        if target.sealed:
            offenders.append(f"{edge}: nothing outside {target.name} imports it ({target.reason})")
        elif target.rank > source.rank:
            offenders.append(f"{edge}: {source.name} (rank {source.rank}) is below {target.name} (rank {target.rank})")
        elif target.rank == source.rank:
            offenders.append(f"{edge}: {source.name} and {target.name} are independent peers (rank {source.rank})")
    return offenders


def test_layers_point_one_way() -> None:
    offenders = _offenders(_layer_of)
    assert not offenders, "layer violations (see LAYERS in tests/unit/test_architecture.py):\n" + "\n".join(offenders)


def _room_of(module: str) -> Layer | None:
    """The one room of `acp_tui/ui/` holding `module` (None outside the UI and for the `ui` package itself)."""
    holding = [room for room in UI_ROOMS if room.holds(module)]
    assert len(holding) <= 1, f"{module} is in two rooms: {[room.name for room in holding]}"
    return holding[0] if holding else None


def test_every_ui_module_has_a_room() -> None:
    ui = next(layer for layer in LAYERS if layer.name == "ui")
    unplaced = sorted(m for m in _modules() if ui.holds(m) and m != "acp_tui.ui" and _room_of(m) is None)
    assert not unplaced, f"give these modules a room in UI_ROOMS (tests/unit/test_architecture.py): {unplaced}"


def test_ui_rooms_point_one_way() -> None:
    """widgets never import a screen; dialogs and browsers never import each other or the chat; only the app
    imports the chat screen: the UI's folders form no cycle (ui/ and ui/screens/ used to import each other)."""
    offenders = _offenders(_room_of)
    where = "see UI_ROOMS in tests/unit/test_architecture.py"
    assert not offenders, f"ui room violations ({where}):\n" + "\n".join(offenders)


def test_the_controller_imports_neither_textual_nor_rich() -> None:
    """The print mode and the controller tests run it without a UI toolkit; checked in a fresh interpreter."""
    code = (
        "import sys\n"
        "import acp_tui.controller.controller\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"importing the controller pulled in: {result.stdout.strip()}"


#: Module-level mutable values the UI may keep, and why each cannot leak between chat screens: an app is to
#: host N chat screens, each with its own controller (tabs), so nothing one screen learns may live in a module.
UI_MODULE_STATE: Mapping[str, str] = {
    "acp_tui.ui.timeline.renderer._CAPABILITIES": "a cache keyed by view class: which protocols a class provides",
    "acp_tui.ui.timeline.tool_call_line._status_styles": "a cache keyed by (colour, background, variant): pure",
    "acp_tui.ui.widgets.markdown_stream._shared_parser": "one stateless markdown parser, built once",
    "acp_tui.ui.widgets.markdown_stream._styles": "one shared copy of each distinct Rich style (bounded interning)",
    "acp_tui.ui.widgets.markdown_stream._warmed": "the code themes Pygments was warmed for, once per process",
    "acp_tui.ui.chat.terminal_title._TITLES": "one window title per app (per terminal), weakly keyed by the app",
}
_MUTABLE_CALLS = frozenset({"dict", "list", "set", "defaultdict", "deque", "WeakKeyDictionary", "WeakValueDictionary"})


def _module_state(module: str, source: str) -> Iterator[tuple[str, int]]:
    """Names a module binds at its top level to a mutable container without `Final`, or rebinds via `global`."""
    tree = ast.parse(source)
    for node in tree.body:
        target, value, annotation = None, None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value, annotation = node.target.id, node.value, ast.unparse(node.annotation)
        if target is None or value is None or target.startswith("__") or (annotation or "").startswith("Final"):
            continue
        mutable = isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _MUTABLE_CALLS
        )
        if mutable:
            yield f"{module}.{target}", node.lineno
    for inner in ast.walk(tree):
        if isinstance(inner, ast.Global):
            for name in inner.names:
                yield f"{module}.{name}", inner.lineno


def test_the_ui_keeps_no_module_level_state_but_pure_caches() -> None:
    ui = next(layer for layer in LAYERS if layer.name == "ui")
    found = {
        name: f"{path.relative_to(REPO)}:{line}"
        for module, path in _modules().items()
        if ui.holds(module)
        for name, line in _module_state(module, path.read_text(encoding="utf-8"))
    }
    unexplained = sorted(f"{name} ({where})" for name, where in found.items() if name not in UI_MODULE_STATE)
    assert not unexplained, (
        "module-level mutable state in acp_tui/ui/ (make it a Final constant table, or an attribute of the screen "
        "or app that owns it; a pure cache goes in UI_MODULE_STATE with its reason):\n" + "\n".join(unexplained)
    )
    assert set(UI_MODULE_STATE) <= set(found), (
        f"stale UI_MODULE_STATE entries: {sorted(set(UI_MODULE_STATE) - set(found))}"
    )


def test_the_module_state_walk_sees_what_it_should() -> None:
    source = (
        "from typing import Final\n"
        "A = {}\n"
        "B: dict[str, int] = dict()\n"
        "C: Final = {}\n"
        "D = (1, 2)\n"
        "E = frozenset()\n"
        "def f() -> None:\n"
        "    global G\n"
    )
    assert [name for name, _ in _module_state("m", source)] == ["m.A", "m.B", "m.G"]


#: A class holds at most this many methods (issue 23: a hub that grows is split into composed parts, each
#: with a declared host protocol, as the controller's `LoginFlow` and `SessionSwitcher` are). No room is
#: exempt (issue 39): the conversation's entity views (ui/timeline/) are the UI's largest classes and were
#: exempt once, and `ToolCallCard` grew to 55 methods; it now composes its line (`CardLine`) and the rows
#: after its items (`CardTrailers`), and a view that outgrows the cap does the same.
MAX_METHODS = 40


def _classes_over(source: str, limit: int) -> Iterator[tuple[str, int]]:
    """Every class (nested ones too) with more than `limit` methods (`def` and `async def` in its body)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            count = sum(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body)
            if count > limit:
                yield node.name, count


def test_no_class_has_more_than_40_methods() -> None:
    over = [
        f"{module}.{name}: {count} methods"
        for module, path in _modules().items()
        for name, count in _classes_over(path.read_text(encoding="utf-8"), MAX_METHODS)
    ]
    assert not over, (
        f"classes over {MAX_METHODS} methods (move a cohesive block into a composed part with a host protocol, "
        "docs/architecture.md):\n" + "\n".join(over)
    )


def test_the_method_count_sees_what_it_should() -> None:
    methods = "".join(f"    def m{i}(self) -> None: ...\n" for i in range(40))
    source = (
        f"class Forty:\n{methods}"
        f"class Big:\n{methods}    async def more(self) -> None: ...\n"
        f"def outer() -> None:\n    class Inner:\n" + methods.replace("    def", "        def") + "        @property\n"
        "        def one_more(self) -> int: ...\n"
    )
    assert sorted(_classes_over(source, MAX_METHODS)) == [("Big", 41), ("Inner", 41)]
