"""Open a resolved path and nothing else: one folder at a time from `/`, never following a symbolic link.

The file service judges a path after resolving it (symlinks and `..` followed) and then must touch
exactly that file. Checking a path and then using it by name leaves a gap: an agent that swaps a folder
for a symbolic link in between redirects the write (issue 21). So the resolved path is opened here one
component at a time, each relative to the folder before it, with `O_DIRECTORY | O_NOFOLLOW`; the work is
then done relative to the last folder's descriptor (`dir_fd=`). A component that is now a symbolic link
or not a folder raises `PathChanged`; nothing is created or written anywhere else.

A folder already opened can still be moved by its owner (the agent runs as the user); `still_at` says
whether the descriptor's folder is still at the path that was judged (`/proc/self/fd` on Linux, else the
device and inode found at that path), checked again right before anything is renamed into place.

Python has no `openat2(RESOLVE_BENEATH)`; the per-component walk gives the same guarantee for a path
that was resolved beforehand.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Final, NoReturn

__all__ = ["PathChanged", "open_folder", "open_file", "still_at"]

#: Folders are opened only to work relative to them (O_PATH needs no read permission).
_FOLDER: Final = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: errno values meaning "this component is not the plain folder or file it was": a symlink or a file.
_CHANGED: Final = frozenset({errno.ENOTDIR, errno.ELOOP})


class PathChanged(Exception):
    """`path` (a folder on the way, or the file itself) is no longer what was resolved: it became a
    symbolic link or something else than a folder."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} changed")
        self.path = path


def _step(folder: int, name: str, path: Path, create: bool) -> int:
    try:
        return os.open(name, _FOLDER, dir_fd=folder)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        _judge(exc, folder, name, path)
    try:
        os.mkdir(name, 0o777, dir_fd=folder)
    except FileExistsError:
        pass  # made meanwhile: opened below like any other
    try:
        return os.open(name, _FOLDER, dir_fd=folder)
    except OSError as exc:
        _judge(exc, folder, name, path)


def _judge(exc: OSError, folder: int, name: str, path: Path) -> NoReturn:
    """Why a component would not open as a folder: a symbolic link there now (the path was resolved, so
    it changed) raises `PathChanged`; anything else (a plain file on the way: "Not a directory") is
    the operating system's own error."""
    if exc.errno in _CHANGED:
        try:
            link = stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
        except OSError:
            link = True  # gone or replaced again while looking: it changed all the same
        if link:
            raise PathChanged(path) from None
    raise exc


def open_folder(folder: Path, *, create: bool = False) -> int:
    """A descriptor for the absolute, resolved `folder`, walked from `/` without following symlinks
    (missing folders made on the way when `create`). Raises `PathChanged` or `OSError`."""
    if not folder.is_absolute() or ".." in folder.parts:
        raise ValueError(f"not a resolved absolute path: {folder}")
    fd = os.open("/", _FOLDER)
    walked = Path("/")
    try:
        for name in folder.parts[1:]:
            walked = walked / name
            following = _step(fd, name, walked, create)
            os.close(fd)
            fd = following
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: Path, flags: int, mode: int = 0o600) -> int:
    """`os.open` of the absolute, resolved `path` with `flags`, its folder walked as `open_folder` does
    and the file itself opened with O_NOFOLLOW. Raises `PathChanged` or `OSError`."""
    if path.parent == path:
        return os.open(path, flags | os.O_CLOEXEC, mode)
    folder = open_folder(path.parent)
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathChanged(path) from None
        raise
    finally:
        os.close(folder)


def still_at(fd: int, folder: Path) -> bool:
    """Is the folder open as `fd` still the one at `folder` (not moved away or removed)?"""
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == os.fspath(folder)
    except OSError:
        pass  # no /proc: compare what is at the path now, without following a link at its end
    try:
        here = os.stat(folder, follow_symlinks=False)
        held = os.fstat(fd)
        resolved = os.path.realpath(folder)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino) and resolved == os.fspath(folder)
