"""Where things are filed: one name per concept in the package, and the tests' tree by layer (issue 23).

A module name used in many places is a concept without a home: three `events.py` were imported `as local`
to be told apart. So a name (a module's, or a package's) appears at most twice under acp_tui/, and at most once
per layer (`protocol/elicitation.py` and `services/elicitation.py` are one concept's two sides; two
`events.py` in one layer are two concepts under one name). `__init__` and `__main__` are Python's names,
not ours.

The tests live in their layers' folders (tests/conftest.py's `LAYERS`, each a pytest marker), with the shared
helpers in tests/support: a test module left at the top would run unmarked, outside `pytest -m unit` and
the like, and a helper there is the start of tests importing tests.
"""

from __future__ import annotations

import subprocess
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.conftest import LAYERS
from tests.support.paths import REPO, TESTS

PACKAGE = REPO / "acp_tui"
#: Python's own module names, in every package
PYTHON_NAMES = frozenset({"__init__", "__main__"})
#: A name may be used this often in the package (a concept's two sides in two layers), and once per layer.
MAX_PLACES = 2
#: What the top of tests/ may hold besides the layer folders.
TESTS_TOP = frozenset({"__init__.py", "conftest.py", "support"})


def _named(root: Path) -> Iterator[tuple[str, Path]]:
    """Every module and package under `root` (a package), by its name: `x.py` and a folder `x/` are `x`."""
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts or path.parent != root and not (path.parent / "__init__.py").exists():
            continue
        if path.stem not in PYTHON_NAMES:
            yield path.stem, path
        elif path.name == "__init__.py" and path.parent != root:
            yield path.parent.name, path.parent


def _layer(root: Path, path: Path) -> str:
    """The layer a module or package is in: its top-level package under `root` (top-level modules: "base")."""
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 else "base"


def _overused(root: Path) -> list[str]:
    places: dict[str, list[Path]] = defaultdict(list)
    for name, path in _named(root):
        places[name].append(path)
    found = []
    for name, paths in sorted(places.items()):
        shown = ", ".join(str(path.relative_to(root.parent)) for path in paths)
        layers = [_layer(root, path) for path in paths if path.suffix == ".py"]  # a package beside its own module
        if len(paths) > MAX_PLACES:
            found.append(f"{name}: {len(paths)} places ({shown})")
        elif len(layers) != len(set(layers)):
            found.append(f"{name}: twice in one layer ({shown})")
    return found


def test_no_module_name_is_used_in_three_places_nor_twice_in_a_layer() -> None:
    overused = _overused(PACKAGE)
    assert not overused, (
        "a module name names one concept (issue 23): name each module for whose it is "
        "(agent/session_events.py, session/local_events.py, controller/controller_events.py):\n" + "\n".join(overused)
    )


def _write(root: Path, files: Iterable[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")


def test_the_name_count_sees_what_it_should(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    _write(
        root,
        [
            "__init__.py",
            "__main__.py",
            "cli.py",
            "a/__init__.py",
            "a/__main__.py",
            "a/events.py",
            "a/cli.py",
            "a/a.py",  # a package's module named for it: one concept
            "b/__init__.py",
            "b/events.py",
            "b/deep/__init__.py",
            "b/deep/events.py",
            "c/__init__.py",
            "c/events/__init__.py",  # a package counts as its name
            "c/model.py",
            "d/__init__.py",
            "d/model.py",
            "e/__init__.py",
            "e/one/__init__.py",
            "e/one/model.py",
            "e/two/__init__.py",
            "e/two/model.py",
            "notes/events.py",  # not a package: not the package's
        ],
    )
    assert _overused(root) == [
        "events: 4 places (pkg/a/events.py, pkg/b/deep/events.py, pkg/b/events.py, pkg/c/events)",
        "model: 4 places (pkg/c/model.py, pkg/d/model.py, pkg/e/one/model.py, pkg/e/two/model.py)",
    ]
    (root / "c" / "model.py").unlink()
    (root / "d" / "model.py").unlink()
    assert _overused(root)[1:] == ["model: twice in one layer (pkg/e/one/model.py, pkg/e/two/model.py)"]
    (root / "e" / "two" / "model.py").unlink()
    (root / "b" / "deep" / "events.py").unlink()
    (root / "c" / "events" / "__init__.py").unlink()
    assert _overused(root) == []


def _top_of(tests: Path) -> set[str]:
    """The names at the top of `tests` that git would carry (tracked, or new and not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "."],
        cwd=tests,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return {Path(line).parts[0] for line in listed if (tests / line).exists()}


def test_the_top_of_tests_holds_only_conftest_support_and_the_layer_folders() -> None:
    stray = _top_of(TESTS) - TESTS_TOP - set(LAYERS)
    assert not stray, (
        f"tests/ holds the layer folders {', '.join(LAYERS)} (tests/conftest.py's LAYERS), conftest.py and "
        f"support/ (shared helpers); move these into one of them: {', '.join(sorted(stray))}"
    )
    assert set(LAYERS) | {"support", "conftest.py"} <= _top_of(TESTS)
