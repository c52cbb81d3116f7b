"""Extra folders (`--add-dir`, an agent's `add_dirs`; ACP `additionalDirectories`): the `@` picker indexes
them, written from the folder (`~/…` under home) so a row says which folder it is from, and the file guards
treat them as inside the session without letting a symlink inside one lead out of it."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from acp_tui.context.index import FileIndex, folder_label
from acp_tui.context.mentions import resolve


def _paths(index: FileIndex) -> list[str]:
    index.start()
    assert index.wait(10)
    corpus = index.corpus
    assert corpus.status == "complete", corpus.reason
    return list(corpus.paths[: corpus.size])


def test_the_index_lists_extra_folders_after_the_root_with_their_folder_written(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("")
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "pkg" / "util.py").write_text("")
    (lib / ".gitignore").write_text("build/\n")
    (lib / "build").mkdir()
    (lib / "build" / "out.o").write_text("")
    paths = _paths(FileIndex(project, extra_roots=[lib, project]))  # the root given again is not walked twice
    label = folder_label(str(lib))
    assert label.endswith("/lib/") and os.path.isabs(os.path.expanduser(label))
    assert "src/app.py" in paths and label + "pkg/util.py" in paths and label + "pkg/" in paths
    assert not any("build" in path for path in paths)  # the folder's own .gitignore holds
    assert sum(path == "src/app.py" for path in paths) == 1
    # a row from an extra folder names the file a mention resolves to, whatever the session directory
    assert resolve(label + "pkg/util.py", project) == lib / "pkg" / "util.py"


def test_a_folder_under_home_is_written_from_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert folder_label(str(tmp_path / "src" / "lib")) == "~/src/lib/"
    assert folder_label(str(tmp_path) + "2/x") == str(tmp_path) + "2/x/"  # a sibling is not under home
    assert resolve("~/src/lib/a.py", "/elsewhere") == tmp_path / "src" / "lib" / "a.py"


def test_an_unreadable_extra_folder_is_skipped_not_a_failed_index(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    paths = _paths(FileIndex(tmp_path, extra_roots=[tmp_path / "gone"]))
    assert paths == ["a.txt"]


async def test_a_symlink_in_an_extra_folder_leading_out_stays_guarded(tmp_path: Path) -> None:
    from acp_tui.services.files import FileService
    from tests.support.files import Context, ScriptedAsker, read, rpc_error, write

    (tmp_path / "project").mkdir()
    extra = tmp_path / "lib"
    extra.mkdir()
    (extra / "inside.txt").write_text("lib text\n")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("private\n")
    (extra / "out").symlink_to(secret, target_is_directory=True)
    (extra / "key-link.txt").symlink_to(secret / "key.txt")
    service = FileService(asker=ScriptedAsker(), outside_writes="refuse", outside_reads="refuse")
    context = Context(tmp_path / "project")
    service.bind(msgspec.structs.replace(context.context(), roots=(extra.resolve(),)))
    assert await read(service, extra / "inside.txt") == "lib text\n"
    for through in (extra / "out" / "key.txt", extra / "key-link.txt"):
        error = await rpc_error(read(service, through))
        assert "outside" in error.message, error.message
    error = await rpc_error(write(service, extra / "out" / "new.txt", "x"))
    assert "outside" in error.message and not (secret / "new.txt").exists()
    assert (secret / "key.txt").read_text() == "private\n"
