"""The hunk model (acp_tui/session/diffs.py): parsing, stable ids, one hunk applied or reverted, and caps.

Property tests (Hypothesis) over random text pairs, CRLF and missing final line breaks included: reverting
every hunk gives back the old text, applying every hunk gives the new one, in any order; a text changed at a
hunk's place gives a Conflict; a diff built from the pair and the same diff parsed as a patch are the same
hunks with the same ids.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.session import diffs
from acp_tui.session.diffs import (
    NO_NEWLINE,
    Applied,
    Conflict,
    FileDiff,
    Hunk,
    HunkResult,
    Limits,
    apply_hunk,
    diff_texts,
    parse_patch,
    revert_hunk,
    split_lines,
    unified_diff,
)

PATCH = (
    "diff --git a/src/app.py b/src/app.py\nindex 1..2 100644\n--- a/src/app.py\n+++ b/src/app.py\n"
    "@@ -1,3 +1,3 @@\n import os\n-x = 1\n+x = 2\n done()\n"
    "@@ -10,2 +10,3 @@ def later():\n keep()\n+added()\n last()\n\\ No newline at end of file\n"
)


def text_of(result: HunkResult) -> str:
    assert isinstance(result, Applied), result
    return result.text


def apply_all(text: str, file: FileDiff, order: Sequence[Hunk]) -> str:
    applied: set[str] = set()
    for hunk in order:
        text = text_of(apply_hunk(text, file, hunk, applied=applied))
        applied.add(hunk.id)
    return text


def revert_all(text: str, file: FileDiff, order: Sequence[Hunk]) -> str:
    applied = {hunk.id for hunk in file.hunks}
    for hunk in order:
        text = text_of(revert_hunk(text, file, hunk, applied=applied))
        applied.discard(hunk.id)
    return text


# -- parsing -------------------------------------------------------------------------------------


def test_a_git_patch_is_files_hunks_and_numbered_rows() -> None:
    patch = parse_patch(PATCH)
    (file,) = patch.files
    assert (file.path, file.old_path, file.created, file.deleted, file.binary) == (
        "src/app.py",
        "src/app.py",
        False,
        False,
        False,
    )
    first, second = file.hunks
    assert [(r.kind, r.text, r.old, r.new) for r in first.rows] == [
        ("context", "import os", 1, 1),
        ("removed", "x = 1", 2, None),
        ("added", "x = 2", None, 2),
        ("context", "done()", 3, 3),
    ]
    assert (second.heading, second.old_index, second.old_start, second.new_start) == ("def later():", 9, 10, 10)
    assert second.rows[-1].ending == "" and second.rows[-1].text == "last()"  # `\ No newline at end of file`
    assert (patch.added, patch.removed, patch.truncated) == (2, 1, False)
    assert second.header() == "@@ -10,2 +10,3 @@ def later():"
    assert first.id != second.id and len(first.id) == 16


def test_headers_inside_a_hunk_are_rows_and_a_plain_diff_names_each_file() -> None:
    tricky = parse_patch("--- a/a\n+++ b/a\n@@ -1,2 +1,1 @@\n--- not a header\n keep\n")
    assert [(r.kind, r.text) for r in tricky.files[0].hunks[0].rows] == [
        ("removed", "-- not a header"),
        ("context", "keep"),
    ]
    two = parse_patch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n")
    assert [(f.path, f.deleted, len(f.hunks)) for f in two.files] == [("x", False, 1), ("y", True, 1)]
    # a header left out of the counts after a hunk is a row when no `+++` follows
    extra = parse_patch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- more\n")
    assert [(r.kind, r.text) for r in extra.files[0].hunks[0].rows][-1] == ("removed", "-- more")


def test_new_deleted_renamed_binary_and_spaced_files() -> None:
    text = (
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
        "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n"
        "diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n"
        "diff --git a/my file.txt b/my file.txt\n--- a/my file.txt\t2024-01-01\n+++ b/my file.txt\t2024-01-01\n"
        "@@ -1 +1 @@\n-x\n+y\n"
    )
    files = parse_patch(text).files
    assert [(f.path, f.old_path, f.created, f.deleted, f.binary) for f in files] == [
        ("new.txt", "", True, False, False),
        ("old.txt", "old.txt", False, True, False),
        ("b", "a", False, False, False),
        ("img.png", "img.png", False, False, True),
        ("my file.txt", "my file.txt", False, False, False),
    ]
    assert files[0].hunks[0].old_index == 0 and files[0].hunks[0].new_lines == ("hi\n",)


def test_crlf_lines_and_a_crlf_patch_keep_their_endings() -> None:
    old, new = "one\r\ntwo\r\n", "one\r\nTWO\r\n"
    text = unified_diff("w.txt", old, new)
    assert "-two\r\n+TWO\r\n" in text
    (hunk,) = parse_patch(text).files[0].hunks
    assert [row.ending for row in hunk.rows] == ["\r\n", "\r\n", "\r\n"]
    assert [row.text for row in hunk.rows] == ["one", "two", "TWO"]
    # a whole patch written with CRLF: its headers lose their `\r`, its lines are CRLF lines
    crlf = parse_patch(PATCH.replace("\n", "\r\n"))
    assert crlf.files[0].path == "src/app.py" and crlf.files[0].hunks[1].heading == "def later():"
    assert crlf.files[0].hunks[1].rows[-1] == diffs.DiffRow("context", "last()\r", 11, 12, "")


def test_malformed_input_is_data_not_an_error() -> None:
    for text in (
        "",
        "\n\n",
        "@@ garbage @@\n",
        "@@ -1" + "9" * 5000 + " +1 @@\n-a\n",
        "+++ \n@@ -1 +1 @@\n",
        "\\\n-x\n",
    ):
        patch = parse_patch(text)
        assert all(isinstance(f, FileDiff) for f in patch.files)
    assert parse_patch("@@ -1" + "9" * 5000 + " +1 @@\n-a\n").files == ()  # no huge int, not a hunk


def test_the_hunks_of_a_text_pair_are_those_of_its_patch() -> None:
    old = "".join(f"line {i}\n" for i in range(30))
    new = old.replace("line 3\n", "line three\n").replace("line 25\n", "") + "tail"
    built = diff_texts("src/x.txt", old, new)
    parsed = parse_patch(unified_diff("src/x.txt", old, new))
    assert built.files[0].hunks == parsed.files[0].hunks and len(built.files[0].hunks) == 2
    assert (built.added, built.removed) == (parsed.added, parsed.removed) == (2, 2)
    assert unified_diff("src/x.txt", old, new).endswith(f"+tail\n{NO_NEWLINE}\n")
    # the same hunks as difflib's own grouping (same numbers, same rows)
    ours = unified_diff("x", old, new).split("\n", 3)[3]
    theirs = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/x", "b/x", lineterm="\n"))
    assert ours.replace(f"\n{NO_NEWLINE}", "") == theirs.split("\n", 2)[2] + "\n"


def test_a_new_file_and_an_emptied_file() -> None:
    created = diff_texts("n.txt", None, "a\nb")
    assert created.files[0].created and created.files[0].hunks[0].header() == "@@ -0,0 +1,2 @@"
    assert text_of(apply_hunk("", created.files[0], created.files[0].hunks[0])) == "a\nb"
    emptied = diff_texts("e.txt", "a\n", "")
    assert emptied.files[0].hunks[0].header() == "@@ -1 +0,0 @@"
    assert diff_texts("same.txt", "a\n", "a\n").files[0].hunks == ()


# -- stable ids ----------------------------------------------------------------------------------


def test_a_hunk_announced_again_keeps_its_id_whatever_surrounds_it() -> None:
    old = "".join(f"line {i}\n" for i in range(40))
    both = old.replace("line 5\n", "five\n").replace("line 30\n", "thirty\n")
    only_second = old.replace("line 30\n", "thirty\n")
    first_diff, again = diff_texts("f", old, both), diff_texts("f", old, both)
    assert [h.id for h in first_diff.hunks()] == [h.id for h in again.hunks()]
    assert first_diff.files[0].hunks[1].id == diff_texts("f", old, only_second).files[0].hunks[0].id
    assert first_diff.files[0].hunks[1].id != diff_texts("g", old, only_second).files[0].hunks[0].id  # path counts
    moved = "x\n" + old  # the same lines elsewhere are another hunk
    assert diff_texts("f", moved, "x\n" + only_second).files[0].hunks[0].id != first_diff.files[0].hunks[1].id


# -- applying and reverting one hunk -------------------------------------------------------------


def test_reject_the_second_of_three_hunks() -> None:
    old = "".join(f"line {i}\n" for i in range(60))
    new = old.replace("line 5\n", "five\n").replace("line 25\n", "twenty-five\n").replace("line 50\n", "fifty\n")
    file = diff_texts("f", old, new).files[0]
    one, two, three = file.hunks
    reverted = text_of(revert_hunk(new, file, two, applied={one.id, two.id, three.id}))
    assert reverted == old.replace("line 5\n", "five\n").replace("line 50\n", "fifty\n")
    # then the first, with the second already taken back
    assert text_of(revert_hunk(reverted, file, one, applied={one.id, three.id})) == old.replace("line 50\n", "fifty\n")


def test_a_changed_text_is_a_conflict_naming_both_versions() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\n"
    file = diff_texts("f", old, new).files[0]
    (hunk,) = file.hunks
    result = revert_hunk("a\nB (edited)\nc\n", file, hunk, applied={hunk.id})
    assert result == Conflict("changed", 1, ("a\n", "B\n", "c\n"), ("a\n", "B (edited)\n", "c\n"))
    assert isinstance(result, Conflict) and result.describe() == "the file changed since at line 1"
    assert isinstance(apply_hunk("a\n", file, hunk), Conflict)  # shorter than the hunk
    assert isinstance(apply_hunk("a\r\nb\r\nc\r\n", file, hunk), Conflict)  # line endings count
    assert isinstance(apply_hunk("a\nb\nc", file, hunk), Conflict)  # and the last line's break


def test_misuse_is_an_error_not_a_result() -> None:
    file = diff_texts("f", "a\n", "b\n").files[0]
    other = diff_texts("g", "a\n", "b\n").files[0].hunks[0]
    with pytest.raises(ValueError, match="applied already"):
        apply_hunk("b\n", file, file.hunks[0], applied={file.hunks[0].id})
    with pytest.raises(ValueError, match="not applied"):
        revert_hunk("a\n", file, file.hunks[0])
    with pytest.raises(ValueError, match="is not one of"):
        apply_hunk("a\n", file, other)


def test_trailing_newline_edges() -> None:
    for old, new in (
        ("a", "a\n"),
        ("a\n", "a"),
        ("a", "b"),
        ("", "a"),
        ("a", ""),
        ("x\ny", "x\ny\nz"),
        ("a\r\n", "a\n"),
    ):
        file = diff_texts("f", old, new).files[0]
        assert apply_all(old, file, file.hunks) == new, (old, new)
        assert revert_all(new, file, file.hunks) == old, (old, new)
        assert parse_patch(unified_diff("f", old, new)).files[0].hunks == file.hunks


# -- properties ----------------------------------------------------------------------------------

_LINE = st.sampled_from(["a", "b", "c", "", "  x", "d\r", "-", "+", "\\", "@@ -1 +1 @@", "é\u2028"])
_ENDING = st.sampled_from(["\n", "\n", "\n", "\r\n"])


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.tuples(_LINE, _ENDING), max_size=25))
    body = "".join(text + ending for text, ending in lines)
    return body + draw(st.sampled_from(["", "", "tail", "\r"]))


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str]:
    """An old text and a new one: random, or the old one edited in a few places (more, smaller hunks)."""
    old = draw(texts())
    if draw(st.booleans()):
        return old, draw(texts())
    lines = split_lines(old)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines)))
        lines[at : at + draw(st.integers(0, 2))] = [
            t + e for t, e in draw(st.lists(st.tuples(_LINE, _ENDING), max_size=3))
        ]
    return old, "".join(lines)


@settings(max_examples=300, deadline=None)
@given(edits(), st.integers(0, 3), st.randoms(use_true_random=False))
def test_every_hunk_in_any_order_gives_the_other_text(pair: tuple[str, str], context: int, rng: random.Random) -> None:
    old, new = pair
    file = diff_texts("p", old, new, context=context).files[0]
    assert apply_all(old, file, file.hunks) == new
    assert revert_all(new, file, file.hunks) == old
    order = list(file.hunks)
    rng.shuffle(order)
    assert apply_all(old, file, order) == new
    rng.shuffle(order)
    assert revert_all(new, file, order) == old


@settings(max_examples=300, deadline=None)
@given(edits(), st.integers(0, 3))
def test_a_diff_parsed_back_is_the_same_hunks(pair: tuple[str, str], context: int) -> None:
    old, new = pair
    built = diff_texts("dir/p.txt", old, new, context=context)
    parsed = parse_patch(unified_diff("dir/p.txt", old, new, context=context))
    assert parsed.files[0].hunks == built.files[0].hunks
    assert (parsed.added, parsed.removed) == (built.added, built.removed)


@settings(max_examples=300, deadline=None)
@given(edits(), st.data())
def test_a_text_changed_at_a_hunks_place_is_a_conflict_and_nothing_else(
    pair: tuple[str, str], data: st.DataObject
) -> None:
    old, new = pair
    file = diff_texts("p", old, new).files[0]
    if not file.hunks:
        return
    hunk = data.draw(st.sampled_from(file.hunks))
    applied = {h.id for h in file.hunks}
    lines = split_lines(new)
    place = hunk.old_index + sum(h.delta for h in file.hunks[: file.hunks.index(hunk)])
    if not hunk.new_lines:  # a pure deletion: the lines around it are not its own; change the text's length
        return
    at = place + data.draw(st.integers(0, len(hunk.new_lines) - 1))
    lines[at] = "changed since\n" + lines[at]
    changed = "".join(lines)
    result = revert_hunk(changed, file, hunk, applied=applied)
    assert isinstance(result, Conflict) and result.reason == "changed"
    assert result.expected == hunk.new_lines and result.found != result.expected
    assert result.line == place + 1


# -- bounds --------------------------------------------------------------------------------------


def test_a_huge_patch_keeps_what_the_caps_allow_and_counts_the_rest() -> None:
    hunk_count = 20_000
    text = "--- a/big\n+++ b/big\n" + "".join(
        f"@@ -{i * 10 + 1} +{i * 10 + 1} @@\n-old {i}\n+new {i}\n" for i in range(hunk_count)
    )
    patch = parse_patch(text, Limits(files=10, hunks=100, rows=150))
    (file,) = patch.files
    assert len(file.hunks) == 75 and sum(len(h.rows) for h in file.hunks) == 150  # the rows cap came first
    assert patch.omitted.hunks == hunk_count - 75 and patch.omitted.later_hunks == hunk_count - 75
    assert patch.omitted.rows == 2 * hunk_count - 150
    assert (patch.added, patch.removed) == (hunk_count, hunk_count) and patch.truncated
    # one giant hunk: its first rows, marked incomplete, so it cannot be applied
    giant = parse_patch("@@ -0,0 +1,100000 @@\n" + "+x\n" * 100_000 + "\\ No newline at end of file\n", Limits(rows=10))
    (hunk,) = giant.files[0].hunks
    assert len(hunk.rows) == 10 and not hunk.complete and giant.omitted.rows == 99_990 and giant.omitted.markers == 1
    result = apply_hunk("", giant.files[0], hunk)
    assert isinstance(result, Conflict) and result.reason == "incomplete"
    many_files = parse_patch(
        "".join(f"diff --git a/{i} b/{i}\nBinary files a/{i} and b/{i} differ\n" for i in range(5000))
    )
    assert (
        len(many_files.files) == diffs.DEFAULT_LIMITS.files
        and many_files.omitted.files == 5000 - diffs.DEFAULT_LIMITS.files
    )


class _CountingMatcher(difflib.SequenceMatcher[str]):
    sizes: list[tuple[int, int]] = []

    def __init__(self, isjunk: None, a: Sequence[str], b: Sequence[str], autojunk: bool = True) -> None:
        _CountingMatcher.sizes.append((len(a), len(b)))
        super().__init__(isjunk, a, b, autojunk)


def test_a_huge_text_pair_is_never_matched_quadratically(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(difflib, "SequenceMatcher", _CountingMatcher)  # what diffs.py calls
    _CountingMatcher.sizes = []
    lines = 200_000
    old = "".join(f"{i}\n" for i in range(lines))
    new = "".join(f"{i}\n" if i % 2 else f"{i}!\n" for i in range(lines))  # every other line changed
    patch = diff_texts("big", old, new, limits=Limits(hunks=50, rows=1_000))
    assert _CountingMatcher.sizes == []  # 200,000 × 200,000 is past the budget: one replaced block
    assert (patch.added, patch.removed) == (lines - 1, lines - 1)  # only the last line is common
    (hunk,) = patch.files[0].hunks
    assert len(hunk.rows) == 1_000 and not hunk.complete and patch.omitted.rows == 2 * (lines - 1) + 1 - 1_000
    text = unified_diff("big", old, new)
    assert text.count("\n") < 3 * lines and _CountingMatcher.sizes == []
    assert parse_patch(text, Limits(rows=10)).added == lines - 1
    # within the budget, difflib matches only the part that differs
    small_old = "head\n" * 1000 + "".join(f"{i}\n" for i in range(500)) + "tail\n" * 1000
    small_new = "head\n" * 1000 + "".join(f"{i}\n" for i in range(0, 500, 2)) + "tail\n" * 1000
    assert len(diff_texts("s", small_old, small_new).files[0].hunks) == 1
    assert _CountingMatcher.sizes == [(499, 249)]  # "0" and the 1,000 lines either side set aside


def test_split_lines_breaks_only_at_newlines() -> None:
    assert split_lines("a\rb\u2028c\x0bd\ne") == ["a\rb\u2028c\x0bd\n", "e"]
    assert split_lines("") == [] and split_lines("\n") == ["\n"] and split_lines("a\n\n") == ["a\n", "\n"]
