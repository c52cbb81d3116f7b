"""A binary distribution: the platform's archive downloaded, verified, unpacked safely, its `cmd` found.

The archive is checked against the registry's `sha256` before anything is unpacked; an entry without one is
installed only when the user says `--trust-unverified` (installs.py asks). Unpacking refuses what could write
outside the folder: absolute names, `..`, links that point out of it (tar's `data` filter), device files,
and more than `MAX_MEMBERS` files or `MAX_UNPACKED` bytes (an archive bomb). `cmd` must name a file inside.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

from acp_tui import __version__
from acp_tui.registry.entries import Binary
from acp_tui.registry.packages import InstallError
from acp_tui.registry.progress import Progress

__all__ = ["MAX_ARCHIVE", "install_binary", "download", "unpack"]

MAX_ARCHIVE = 2 * 1024 * 1024 * 1024
MAX_UNPACKED = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 100_000
TIMEOUT = 30.0
_CHUNK = 256 * 1024


def install_binary(target: Binary, tmp: Path, final: Path, progress: Progress, *, trust_unverified: bool) -> list[str]:
    """Download, verify (or, told so, not), unpack into `tmp/`; the argv of `cmd` (under `final`)."""
    if target.sha256 is None and not trust_unverified:
        raise InstallError(
            "the registry gives no sha256 for this archive (refused: use --trust-unverified to install it)"
        )
    archive = tmp / ".download"
    digest = download(target.archive, archive, progress)
    if target.sha256 is not None and digest != target.sha256:
        raise InstallError(
            f"the archive's sha256 is {digest}, the registry says {target.sha256}: refused, nothing installed"
        )
    root = tmp / "files"
    root.mkdir()
    progress.step("unpacking")
    unpack(archive, root)
    archive.unlink()
    cmd = Path(os.path.normpath(root / target.cmd))
    if not cmd.is_relative_to(root) or cmd.is_symlink() and not cmd.resolve().is_relative_to(root.resolve()):
        raise InstallError(f"the registry's cmd {target.cmd!r} points outside the archive")
    if not cmd.is_file():
        raise InstallError(f"the archive has no {target.cmd!r} (the registry's cmd)")
    mode = cmd.stat().st_mode
    if not mode & stat.S_IXUSR:
        cmd.chmod(mode | stat.S_IXUSR)
    return [str(final / cmd.relative_to(tmp))]


def download(url: str, into: Path, progress: Progress) -> str:
    """GET `url` into `into` (at most `MAX_ARCHIVE` bytes); its sha256 in hex."""
    if urllib.parse.urlsplit(url).scheme.lower() not in ("http", "https"):
        raise InstallError(f"the archive's address is not http(s): {url[:200]!r}")
    progress.step(f"downloading {url[:200]}")
    request = urllib.request.Request(url, headers={"User-Agent": f"acp-tui/{__version__}"})
    digest = hashlib.sha256()
    done = 0
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response, open(into, "wb") as file:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            if total is not None and total > MAX_ARCHIVE:
                raise InstallError(f"the archive is {total} bytes, more than acp-tui downloads ({MAX_ARCHIVE})")
            while chunk := response.read(_CHUNK):
                done += len(chunk)
                if done > MAX_ARCHIVE:
                    raise InstallError(f"the archive is larger than acp-tui downloads ({MAX_ARCHIVE} bytes)")
                digest.update(chunk)
                file.write(chunk)
                progress.transfer(done, total)
            if total is not None and done != total:
                raise InstallError(f"the download ended after {done} of {total} bytes")
    except urllib.error.HTTPError as exc:
        raise InstallError(f"the archive could not be downloaded: HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc.strerror or exc
        raise InstallError(f"the archive could not be downloaded: {reason}") from None
    return digest.hexdigest()


def unpack(archive: Path, into: Path) -> None:
    """A tar (any compression) or zip archive into `into`, refusing anything that would land outside it."""
    try:
        if zipfile.is_zipfile(archive):
            _unzip(archive, into)
            return
        with tarfile.open(archive, "r:*") as tar:
            members = tar.getmembers()
            _limits(len(members), sum(member.size for member in members))
            for member in members:
                _safe_name(member.name)
                if member.isdev():
                    raise InstallError(f"the archive holds a device file: {member.name[:200]!r}")
            tar.extractall(into, members=members, filter="data")
    except tarfile.FilterError as exc:
        raise InstallError(f"the archive tries to write outside its folder: {str(exc)[:200]}") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise InstallError(
            f"the download is not an archive acp-tui can unpack (tar or zip): {str(exc)[:200]}"
        ) from None


def _limits(members: int, size: int) -> None:
    if members > MAX_MEMBERS or size > MAX_UNPACKED:
        raise InstallError(f"the archive is too large to unpack ({members} files, {size} bytes)")


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise InstallError(f"the archive holds a path outside its folder: {name[:200]!r}")
    return path


def _unzip(archive: Path, into: Path) -> None:
    with zipfile.ZipFile(archive) as zipped:
        infos = zipped.infolist()
        _limits(len(infos), sum(info.file_size for info in infos))
        for info in infos:
            path = _safe_name(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise InstallError(f"the archive holds a symbolic link: {info.filename[:200]!r}")
            target = into.joinpath(*path.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipped.open(info) as source, open(target, "xb") as file:
                while chunk := source.read(_CHUNK):
                    file.write(chunk)
            if mode & 0o111:
                with contextlib.suppress(OSError):
                    target.chmod(0o755)
