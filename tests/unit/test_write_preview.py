"""A write or edit's raw input against the file on disk (services/write_preview.py): the permission dialog's
diff when the agent sent none (Claude Code's second identical `Write`, newcomer report of 2026-12-07)."""

from __future__ import annotations

import os
from pathlib import Path

from acp_tui.protocol.v2 import Diff, DiffChange, DiffPatch
from acp_tui.services.write_preview import MAX_PREVIEW_BYTES, empty_diff, planned_write


def patch_text(diff: Diff | None) -> str:
    assert diff is not None and isinstance(diff.patch, DiffPatch)
    return diff.patch.text


def test_a_write_of_the_text_the_file_holds_is_no_change(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    preview = planned_write({"file_path": str(tmp_path / "notes.txt"), "content": "hello\n"}, None)
    assert preview is not None and preview.unchanged and preview.size == 6
    relative = planned_write({"file_path": "notes.txt", "content": "hello\n"}, str(tmp_path))  # from the session folder
    assert relative is not None and relative.unchanged


def test_a_write_that_changes_the_file_is_its_diff_and_a_new_file_is_an_add(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\nworld\n")
    preview = planned_write({"file_path": str(tmp_path / "notes.txt"), "content": "hello\nthere\n"}, None)
    assert preview is not None and not preview.unchanged and not preview.note
    text = patch_text(preview.diff)
    assert "-world\n" in text and "+there\n" in text and " hello\n" in text
    fresh = planned_write({"file_path": str(tmp_path / "new.txt"), "content": "hi\n"}, None)
    assert fresh is not None and fresh.diff is not None and fresh.diff.changes[0].operation == "add"


def test_an_edit_is_diffed_in_the_file_or_as_its_two_strings(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    edit = planned_write({"file_path": str(tmp_path / "a.py"), "old_string": "y = 2", "new_string": "y = 3"}, None)
    assert edit is not None and "-y = 2\n" in patch_text(edit.diff) and " x = 1\n" in patch_text(edit.diff)
    same = planned_write({"file_path": str(tmp_path / "a.py"), "old_string": "y = 2", "new_string": "y = 2"}, None)
    assert same is not None and same.unchanged
    elsewhere = planned_write({"file_path": str(tmp_path / "b.py"), "old_string": "p", "new_string": "q"}, None)
    assert elsewhere is not None and "-p\n" in patch_text(elsewhere.diff) and "+q\n" in patch_text(elsewhere.diff)


def test_what_cannot_be_compared_says_why_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading would block without O_NONBLOCK
    preview = planned_write({"file_path": str(fifo), "content": "x"}, None)
    assert preview is not None and preview.diff is None and preview.note == "not a regular file"
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * (MAX_PREVIEW_BYTES + 1))
    preview = planned_write({"file_path": str(big), "content": "x"}, None)
    assert preview is not None and preview.note == "the file is too large to compare here"
    (tmp_path / "bin").write_bytes(b"\0\1\2")
    preview = planned_write({"file_path": str(tmp_path / "bin"), "content": "x"}, None)
    assert preview is not None and preview.note == "a binary file"
    preview = planned_write({"file_path": "rel.txt", "content": "x"}, None)
    assert preview is not None and "relative path" in preview.note
    # not a write: nothing to preview
    assert planned_write({"command": "ls"}, str(tmp_path)) is None
    assert planned_write(["file_path", "content"], str(tmp_path)) is None


def test_an_empty_patch_is_no_change_but_an_add_or_a_hunk_is() -> None:
    header = "diff --git a/x b/x\n"
    assert empty_diff(Diff(changes=[DiffChange(operation="modify", path="x")], patch=DiffPatch("git_patch", header)))
    assert not empty_diff(Diff(changes=[DiffChange(operation="add", path="x")], patch=DiffPatch("git_patch", header)))
    hunk = header + "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    assert not empty_diff(Diff(changes=[DiffChange(operation="modify", path="x")], patch=DiffPatch("git_patch", hunk)))
