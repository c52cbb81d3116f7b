#!/usr/bin/env python3
"""`@` mention speed on a 100,000-file tree (run by hand: python bench/mention_speed.py [--files N] [--keep DIR]).

Generates a tree of N files (default 100,000, in ~2,200 directories, with a `.gitignore`) in a temporary
directory, then measures, in the real `FilePicker` and `PromptInput` of a headless Textual app:

* cold `@`: the index is started by the `@` itself (nothing warmed it): time from `@` until the
  picker lists its first results (streamed from the growing index);
* warm `@`: the index is complete (`FilePicker.warm()` ran at start-up): time for `@` to show rows;
* keystrokes: realistic queries typed one character at a time after `@`, each timed from the key
  to the picker's rows being rebuilt (matcher + rows), on the complete index;
* keystrokes while indexing: the same typing started right after the index was started, so the
  background walk competes for the interpreter: typing must not wait for it;
* the index build itself (walk, ranking, character masks), for reference.

Goals (issue 17): first results ≤ 150 ms after `@`, ≤ 30 ms per keystroke, typing never waits for the
index. Prints medians and p95 for one run; quote the medians of 3-5 runs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from textual.app import App, ComposeResult  # noqa: E402

from acp_tui.context.index import FileIndex  # noqa: E402
from acp_tui.history import PromptHistory  # noqa: E402
from acp_tui.ui.widgets.file_picker import FilePicker  # noqa: E402
from acp_tui.ui.widgets.prompt_input import PromptInput  # noqa: E402

WORDS = (
    "app core util model view test data api http parse render index cache config session client server agent "
    "prompt widget file path store query build token stream event logger screen theme button layout"
).split()
SUFFIXES = (".py", ".ts", ".md", ".json", ".rs", ".tsx", ".toml")
QUERIES = ("appmodel", "src/widgets/but", "readme", "sessionclient", "config.toml", "zzq", "prompt_widget", "tst")


def make_tree(root: Path, files: int, seed: int = 17) -> int:
    """`files` empty files under `root` in a realistic mix of depths; returns how many were made."""
    rng = random.Random(seed)
    (root / ".gitignore").write_text("*.pyc\n__pycache__/\nbuild/\n*.log\nnode_modules/\n.venv/\n")
    made = 0
    top = 0
    while made < files:
        top_dir = root / f"{rng.choice(WORDS)}{top}"
        top += 1
        for sub in range(10):
            for leaf in range(10):
                directory = top_dir / f"{rng.choice(WORDS)}_{sub}" / f"{rng.choice(WORDS)}{leaf}"
                directory.mkdir(parents=True, exist_ok=True)
                for _ in range(min(45, files - made)):
                    name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{made}{rng.choice(SUFFIXES)}"
                    (directory / name).touch()
                    made += 1
                if made >= files:
                    return made
    return made


class BenchApp(App[None]):
    def __init__(self, root: Path, warm: bool) -> None:
        super().__init__()
        self.root = root
        self.warm = warm

    def compose(self) -> ComposeResult:
        picker = FilePicker(self.root, id="file-picker")
        yield picker
        yield PromptInput(PromptHistory(None), id="prompt", file_picker=picker)

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()
        if self.warm:
            self.query_one(FilePicker).warm()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def cold_first_results(root: Path) -> float:
    """ms from `@` (index not started) until the picker lists results."""
    app = BenchApp(root, warm=False)
    async with app.run_test(size=(120, 40)) as pilot:
        picker = app.query_one(FilePicker)
        prompt = app.query_one(PromptInput)
        await pilot.pause()
        started = time.perf_counter()
        prompt.insert("@")  # as the key does; its Changed message opens the picker, which starts the index
        while not picker.shown:
            await asyncio.sleep(0.002)
        elapsed = (time.perf_counter() - started) * 1000
        assert picker.index is not None
        await asyncio.to_thread(picker.index.wait, 120)
    return elapsed


async def typing(root: Path, *, warm: bool) -> dict[str, Any]:
    """Time `@` and each keystroke of QUERIES in the picker; with `warm`, on a complete index."""
    app = BenchApp(root, warm=warm)
    results: dict[str, Any] = {"at": [], "keys": []}
    async with app.run_test(size=(120, 40)) as pilot:
        picker = app.query_one(FilePicker)
        prompt = app.query_one(PromptInput)
        index = picker.index
        assert index is not None
        if warm:
            await asyncio.to_thread(index.wait, 120)
            while index.corpus.masks is None:
                await asyncio.sleep(0.01)
        else:
            index.start()  # the walk starts now and runs while we type
        for query in QUERIES:
            prompt.load_text("see ")
            prompt.move_cursor(prompt.document.end)
            await pilot.pause()
            started = time.perf_counter()
            prompt.insert("@")
            prompt.context.sync_picker()  # what the Changed handler does for the key, timed synchronously
            results["at"].append((time.perf_counter() - started) * 1000)
            for char in query:
                started = time.perf_counter()
                prompt.insert(char)
                prompt.context.sync_picker()
                results["keys"].append((time.perf_counter() - started) * 1000)
                await pilot.pause()
        results["complete_during"] = index.corpus.complete
        await asyncio.to_thread(index.wait, 120)
    return results


def build_times(root: Path) -> dict[str, float]:
    index = FileIndex(root)
    marks: dict[str, float] = {}
    started = time.perf_counter()

    def published() -> None:
        corpus = index.corpus
        now = (time.perf_counter() - started) * 1000
        marks.setdefault("first publication", now)
        if corpus.complete and corpus.masks is None:
            marks["complete"] = now
        if corpus.masks is not None:
            marks["masks"] = now
            marks["entries"] = corpus.size

    index.on_publish = published
    index.start()
    index.wait(300)
    return marks


def summary(label: str, values: list[float]) -> str:
    return (
        f"{label}: median {statistics.median(values):.1f} ms, p95 {percentile(values, 0.95):.1f} ms, "
        f"max {max(values):.1f} ms (n={len(values)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the tree here instead of a temporary directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mention-bench-") as tmp:
        root = args.keep or Path(tmp) / "tree"
        if not root.exists() or not any(root.iterdir()):
            root.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            made = make_tree(root, args.files)
            print(f"tree: {made:,} files in {time.perf_counter() - started:.1f} s ({root})")
        marks = build_times(root)
        print("index: " + ", ".join(f"{k} {v:,.0f}" + ("" if k == "entries" else " ms") for k, v in marks.items()))
        cold = asyncio.run(cold_first_results(root))
        print(f"cold @ (index started by the @): first results after {cold:.1f} ms")
        warm = asyncio.run(typing(root, warm=True))
        print(summary("warm @ (complete index)", warm["at"]))
        print(summary("keystroke (complete index)", warm["keys"]))
        busy = asyncio.run(typing(root, warm=False))
        state = "finished" if busy["complete_during"] else "still running"
        print(summary(f"keystroke while indexing (walk {state} at the end)", busy["keys"]))


if __name__ == "__main__":
    main()
