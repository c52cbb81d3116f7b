"""The file service against an agent that races it (issue 21): folders swapped for symbolic links between
the check and the write, writes that fail half-way, reads outside the folder.

The guards are by construction (acp_tui/services/beneath.py): every read and write opens the resolved
path one folder at a time with O_NOFOLLOW and works relative to the folder's descriptor, so a swap can
make a request fail, with a clear message, but never make it touch another file than the one judged.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.jsonrpc import RpcError
from tests.support.files import ScriptedAsker, make, read, rpc_error, write


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Threads take turns far more often than usual, so a race the code leaves open is hit."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchanger() -> Any:
    """Linux `renameat2(..., RENAME_EXCHANGE)`: swaps two names atomically (neither is ever missing)."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        pytest.skip("renameat2 is not available")
    return renameat2


class Swapper(threading.Thread):
    """Swaps the folder `race` for a symbolic link to `outside` and back, as fast as it can (an atomic
    exchange with `race.swap`, so `race` always exists: once a folder, once the link)."""

    def __init__(self, race: Path, outside: Path) -> None:
        super().__init__(daemon=True)
        self.race = os.fsencode(race)
        self.swap = os.fsencode(race.with_name("race.swap"))
        os.symlink(outside, self.swap)
        self.exchange = _exchanger()
        if self.exchange(_AT_FDCWD, self.race, _AT_FDCWD, self.swap, _RENAME_EXCHANGE) != 0:
            pytest.skip(f"RENAME_EXCHANGE is not supported here: {os.strerror(ctypes.get_errno())}")
        self._exchange()  # back: `race` is the folder
        self.stop = threading.Event()
        self.swaps = 0

    def _exchange(self) -> None:
        assert self.exchange(_AT_FDCWD, self.race, _AT_FDCWD, self.swap, _RENAME_EXCHANGE) == 0

    def run(self) -> None:
        while not self.stop.is_set():
            self._exchange()  # `race` is the link to the outside folder
            self._exchange()  # and the folder again
            self.swaps += 1


def _clear(message: str) -> bool:
    """A refusal a person can read: never a bare exception name."""
    return not message.startswith("Internal error") and "Error" not in message.split(":")[-1]


async def test_a_folder_swapped_for_a_symlink_never_gets_a_write_outside(tmp_path: Path, fast_switching: None) -> None:
    writes = 240
    service, context, cwd = make(tmp_path, asker=ScriptedAsker(*[False] * writes))
    race = cwd / "race"
    race.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    swapper = Swapper(race, outside)
    answers: list[tuple[int, str]] = []
    landed: set[str] = set()
    content = "x" * (256 * 1024)
    swapper.start()
    try:
        for n in range(writes):
            try:
                await write(service, race / f"f{n}.txt", content)
            except RpcError as exc:
                answers.append((n, exc.message))
            except Exception as exc:  # noqa: BLE001 - what the connection would answer: a bare exception name
                answers.append((n, f"Internal error: {type(exc).__name__}"))
            else:
                answers.append((n, ""))
            if n % 8 == 0:
                await asyncio.sleep(0)  # as between requests from a real agent
            landed.update(path.name for path in outside.iterdir())
    finally:
        swapper.stop.set()
        swapper.join()
    assert swapper.swaps > writes  # the folder really changed under the writes
    assert landed == set(), "writes landed outside"
    assert list(tmp_path.rglob("*.acp-tmp")) == []
    for n, message in answers:
        if not message:
            assert (race / f"f{n}.txt").read_text() == content  # a success is a write inside
        else:
            assert _clear(message), message
    # the timeline never claims a write that did not happen where it says
    for access in context.accesses:
        if access.status == "done":
            assert Path(access.path).is_relative_to(cwd) and Path(access.path).exists()


def _swap_for_link(folder: Path, to: Path) -> None:
    """What a hostile agent does between two steps of ours: the folder moves aside, a link takes its name."""
    os.rename(folder, folder.with_name(folder.name + ".real"))
    os.symlink(to, folder)


async def test_a_folder_swapped_after_the_temporary_file_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, context, cwd = make(tmp_path)
    race = cwd / "race"
    race.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    real_fsync = os.fsync

    def fsync_then_swap(fd: int) -> None:
        real_fsync(fd)
        if race.is_dir() and not race.is_symlink():
            _swap_for_link(race, outside)

    monkeypatch.setattr(os, "fsync", fsync_then_swap)
    error = await rpc_error(write(service, race / "f.txt", "x" * 4096))
    assert error.message == "the folder race changed while writing; nothing was written"
    assert list(outside.iterdir()) == [] and list(tmp_path.rglob("*.acp-tmp")) == []
    (access,) = context.accesses
    assert access.status == "failed" and "changed while writing" in access.detail


async def test_a_failing_write_removes_its_temporary_file_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, _, cwd = make(tmp_path)

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    error = await rpc_error(write(service, cwd / "f.txt", "x"))
    assert error.message == f"cannot write {cwd / 'f.txt'}: No space left on device"
    assert list(tmp_path.rglob("*.acp-tmp")) == [] and not (cwd / "f.txt").exists()


async def test_a_read_judged_inside_never_reads_through_a_folder_swapped_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, context, cwd = make(tmp_path)
    race = cwd / "race"
    race.mkdir()
    (race / "notes.txt").write_text("mine\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("secret\n")
    real_realpath = os.path.realpath

    def resolve_then_swap(path: Any, *args: Any, **kwargs: Any) -> str:
        resolved: str = real_realpath(path, *args, **kwargs)
        if resolved == str(race / "notes.txt") and not race.is_symlink():
            _swap_for_link(race, outside)
        return resolved

    monkeypatch.setattr(os.path, "realpath", resolve_then_swap)
    error = await rpc_error(read(service, race / "notes.txt"))
    assert error.message == "the folder race changed while reading; nothing was read"
    (access,) = context.accesses
    assert access.status == "failed" and access.path == str(race / "notes.txt")


async def test_a_path_that_changes_while_it_is_resolved_gets_a_clear_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, context, cwd = make(tmp_path)

    def swapped(path: Any, *args: Any, **kwargs: Any) -> str:
        raise OSError(22, "Invalid argument")  # realpath's readlink meeting a link swapped back to a folder

    monkeypatch.setattr(os.path, "realpath", swapped)
    error = await rpc_error(write(service, cwd / "race" / "f.txt", "x"))
    assert error.message == f"{cwd / 'race' / 'f.txt'} changed while writing (Invalid argument); nothing was written"
    error = await rpc_error(read(service, cwd / "race" / "f.txt"))
    assert error.message == f"{cwd / 'race' / 'f.txt'} changed while reading (Invalid argument); nothing was read"
    assert [access.status for access in context.accesses] == ["failed", "failed"]


async def test_a_symlink_loop_is_refused_plainly(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path)
    (cwd / "loop").symlink_to(cwd / "loop")
    assert "symbolic link that does not resolve" in (await rpc_error(read(service, cwd / "loop"))).message
    assert "symbolic link that does not resolve" in (await rpc_error(write(service, cwd / "loop", "x"))).message


# -- reads outside the folder: shown as outside, and the `outside_reads` setting -----------------------


def _outside_file(tmp_path: Path) -> Path:
    secret = tmp_path / "home" / ".ssh" / "id_ed25519"
    secret.parent.mkdir(parents=True)
    secret.write_text("PRIVATE KEY\n")
    return secret


async def test_an_outside_read_is_allowed_by_default_and_marked_outside(tmp_path: Path) -> None:
    service, context, cwd = make(tmp_path)
    secret = _outside_file(tmp_path)
    (cwd / "inside.txt").write_text("in\n")
    (cwd / "key").symlink_to(secret)
    assert await read(service, cwd / "key") == "PRIVATE KEY\n"
    assert await read(service, cwd / "inside.txt") == "in\n"
    outside, inside = context.accesses
    assert (outside.outside, outside.path, outside.requested_path) == (True, str(secret), str(cwd / "key"))
    assert not inside.outside


async def test_an_outside_read_can_be_refused_by_setting(tmp_path: Path) -> None:
    asker = ScriptedAsker()
    service, context, _ = make(tmp_path, asker=asker, outside_reads="refuse")
    secret = _outside_file(tmp_path)
    error = await rpc_error(read(service, secret))
    assert (
        error.message
        == f'refused: reading {secret} outside the session folder is turned off (outside_reads = "refuse")'
    )
    (access,) = context.accesses
    assert (access.status, access.outside) == ("refused", True) and asker.reads == []


@pytest.mark.parametrize("answer", [True, False])
async def test_an_outside_read_can_be_asked_about(tmp_path: Path, answer: bool) -> None:
    asker = ScriptedAsker(answer)
    service, context, cwd = make(tmp_path, asker=asker, outside_reads="ask")
    secret = _outside_file(tmp_path)
    (cwd / "inside.txt").write_text("in\n")
    assert await read(service, cwd / "inside.txt") == "in\n"  # inside: never asked
    if answer:
        assert await read(service, secret) == "PRIVATE KEY\n"
    else:
        error = await rpc_error(read(service, secret))
        assert error.message == f"refused: the user declined reading {secret} outside the session folder"
    (question,) = asker.reads
    assert (question.path, question.cwd, question.requested) == (secret, cwd, str(secret))
    assert [(a.status, a.outside) for a in context.accesses] == [
        ("done", False),
        ("done" if answer else "refused", True),
    ]


async def test_an_outside_read_with_nobody_to_ask_is_refused(tmp_path: Path) -> None:
    service, context, _ = make(tmp_path, outside_reads="ask")
    error = await rpc_error(read(service, _outside_file(tmp_path)))
    assert "needs the user's consent" in error.message and context.accesses[0].status == "refused"


def test_outside_reads_is_a_setting() -> None:
    from acp_tui.config import Settings, parse_settings

    assert Settings().outside_reads == "allow"
    for value in ("allow", "ask", "refuse"):
        settings, warnings = parse_settings(f'outside_reads = "{value}"\n', "config.toml")
        assert (settings.outside_reads, warnings) == (value, [])
    settings, warnings = parse_settings('outside_reads = "never"\n', "config.toml")
    assert settings.outside_reads == "allow"
    assert warnings == ['config.toml:1: \'outside_reads\' must be "allow", "ask" or "refuse", not \'never\'; allowing']


def test_the_setting_reaches_the_file_service() -> None:
    from types import MappingProxyType

    from acp_tui.agent.host import LocalHost
    from acp_tui.controller.wiring import default_services
    from acp_tui.launch import Launch
    from acp_tui.services.files import FileService
    from tests.support.controller import ScriptedUser

    launch = Launch(
        agent_argv=("agent",),
        agent_name="agent",
        env=MappingProxyType({}),
        cwd=Path("/"),
        protocol=1,
        theme=None,
        log_path=None,
        init_timeout=1.0,
        warnings=(),
        outside_reads="refuse",
    )
    (files,) = [
        service
        for service in default_services(launch, LocalHost(), ScriptedUser([]))
        if isinstance(service, FileService)
    ]
    assert files.outside_reads == "refuse"


# -- an outside write the user allowed goes to exactly the path the dialog showed --------------------------


class SwappingAsker(ScriptedAsker):
    """Says yes, after the agent has swapped something on the way while the dialog was open."""

    def __init__(self, swap: Any) -> None:
        super().__init__(True)
        self.swap = swap

    async def confirm_outside_write(self, write: Any) -> bool:
        self.swap()
        return await super().confirm_outside_write(write)


async def test_an_allowed_outside_write_never_follows_a_folder_swapped_during_the_dialog(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "dir"
    shared.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    asker = SwappingAsker(lambda: _swap_for_link(shared, elsewhere))
    service, context, _ = make(tmp_path, asker=asker)
    error = await rpc_error(write(service, shared / "f.txt", "x"))
    assert error.message == f"the folder {shared} changed while writing; nothing was written"
    assert asker.asked[0].path == shared / "f.txt"
    assert list(elsewhere.iterdir()) == [] and list(tmp_path.rglob("*.acp-tmp")) == []
    assert context.accesses[0].status == "failed"


async def test_an_allowed_outside_write_never_follows_a_file_swapped_for_a_link(tmp_path: Path) -> None:
    shown = tmp_path / "shared.txt"
    shown.write_text("old\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")

    def swap() -> None:
        shown.unlink()
        shown.symlink_to(victim)

    service, _, _ = make(tmp_path, asker=SwappingAsker(swap))
    error = await rpc_error(write(service, shown, "new\n"))
    assert error.message == f"the file {shown} changed while writing; nothing was written"
    assert victim.read_text() == "precious\n" and shown.is_symlink()


async def test_a_file_where_a_folder_should_be_is_the_system_s_error_not_a_change(tmp_path: Path) -> None:
    service, _, cwd = make(tmp_path)
    (cwd / "plain").write_text("x")
    error = await rpc_error(write(service, cwd / "plain" / "f.txt", "x"))
    assert error.message == f"cannot write {cwd / 'plain' / 'f.txt'}: Not a directory"
    error = await rpc_error(read(service, cwd / "plain" / "f.txt"))
    assert error.message == f"cannot read {cwd / 'plain' / 'f.txt'}: Not a directory"


async def test_an_allowed_outside_write_is_refused_when_the_file_changed_during_the_dialog(tmp_path: Path) -> None:
    shown = tmp_path / "shared.txt"
    created = tmp_path / "new.txt"

    shown.write_text("old\n")
    service, _, _ = make(tmp_path, asker=SwappingAsker(lambda: shown.write_text("someone else's longer text\n")))
    error = await rpc_error(write(service, shown, "new\n"))
    assert error.message == f"the file {shown} changed while writing; nothing was written"
    assert shown.read_text() == "someone else's longer text\n"
    service, _, _ = make(tmp_path, asker=SwappingAsker(lambda: created.write_text("appeared\n")))
    error = await rpc_error(write(service, created, "mine\n"))  # the dialog said "create"
    assert error.message == f"the file {created} changed while writing; nothing was written"
    assert created.read_text() == "appeared\n"
