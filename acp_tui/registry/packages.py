"""npm and PyPI installs into one folder, and the command each resolves from what it installed.

npm: `npm install --prefix DIR name@1.2.3` (never `-g`, never `@latest`); the command is the bin that the
installed package's own package.json names (its only one, or the one named like the package), run with the
`node` found now. PyPI: a virtual environment per agent and version (`uv venv` + `uv pip install` when uv is on
PATH, else `python -m venv` + its pip), `name==1.2.3`; the command is the console script its installed
`entry_points.txt` names. A venv's scripts name their interpreter by absolute path, so the temp folder's path in
them is replaced by the final one before the folder is renamed (installs.py): only the rename remains.

Each function builds in `tmp` and returns argv as it will be after the rename to `final`.
"""

from __future__ import annotations

import configparser
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from acp_tui.registry.entries import Package
from acp_tui.registry.progress import Progress

__all__ = ["InstallError", "install_npm", "install_pypi", "run_tool"]

#: the longest one install step may take
STEP_TIMEOUT = 15 * 60.0


class InstallError(Exception):
    """An install that cannot be done; `str()` says why and what to do."""


NODE_HELP = "install Node.js (npm comes with it): https://nodejs.org or your system's package manager"
PYTHON_HELP = (
    "install uv (https://docs.astral.sh/uv/), or Python's venv module (Debian and Ubuntu: apt install python3-venv)"
)


def _require(tool: str, help_text: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise InstallError(f"{tool} is not installed (not on PATH): {help_text}")
    return found


def run_tool(
    argv: Sequence[str], cwd: Path, progress: Progress, what: str, env: Mapping[str, str] | None = None
) -> None:
    """Run one install step in its own process group, its output to `progress`; raises InstallError with the
    output's last lines when it fails. The group is killed when we are interrupted, so nothing keeps writing."""
    progress.step(what)
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(os.environ if env is None else env),
            start_new_session=True,
        )
    except OSError as exc:
        raise InstallError(f"{what}: cannot run {argv[0]}: {exc.strerror or exc}") from None
    tail: list[str] = []
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            text = raw.decode("utf-8", "replace").rstrip()
            progress.line(text)
            tail = [*tail[-24:], text[:300]]
        code = process.wait(timeout=STEP_TIMEOUT)
    except BaseException:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    if code != 0:
        shown = "\n".join(f"    {line}" for line in tail[-12:])
        raise InstallError(f"{what} failed (exit {code}):\n{shown}")


def install_npm(package: Package, tmp: Path, final: Path, progress: Progress) -> list[str]:
    """`npm install --prefix tmp name@version`; the argv of its bin (under `final`)."""
    npm = _require("npm", NODE_HELP)
    node = _require("node", NODE_HELP)
    spec = f"{package.name}@{package.version}"
    (tmp / "package.json").write_text('{"name": "acp-tui-agent", "version": "0.0.0", "private": true}\n')
    run_tool(
        [npm, "install", "--prefix", str(tmp), "--no-audit", "--no-fund", "--save-exact", spec],
        tmp,
        progress,
        f"npm install {spec}",
    )
    folder = tmp / "node_modules" / package.name
    try:
        manifest = json.loads((folder / "package.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(f"npm installed no readable {package.name}/package.json ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("version") != package.version:
        got = manifest.get("version") if isinstance(manifest, dict) else None
        raise InstallError(f"npm installed {package.name} {got!r}, not the pinned {package.version}")
    bins = manifest.get("bin")
    if isinstance(bins, str):
        bins = {package.name.rsplit("/", 1)[-1]: bins}
    if not isinstance(bins, dict) or not bins or not all(isinstance(v, str) for v in bins.values()):
        raise InstallError(f"{spec} names no program to run (its package.json has no 'bin')")
    choice = _choose(bins, package.cmd, package.name.rsplit("/", 1)[-1], spec)
    script = Path(os.path.normpath(folder / bins[choice]))
    if not script.is_relative_to(folder) or not script.is_file():
        raise InstallError(f"{spec}: its bin {choice!r} is no file inside the package")
    target = final / script.relative_to(tmp)
    head = script.open("rb").read(200)
    runs_with_node = (
        script.suffix in (".js", ".cjs", ".mjs") or not head.startswith(b"#!") or b"node" in head.split(b"\n")[0]
    )
    return [node, str(target)] if runs_with_node else [str(target)]


def _choose(bins: Mapping[str, str], wanted: str | None, default: str, spec: str) -> str:
    if wanted is not None:
        if wanted not in bins:
            raise InstallError(f"{spec} has no program {wanted!r} (it has {', '.join(sorted(bins))})")
        return wanted
    if len(bins) == 1:
        return next(iter(bins))
    if default in bins:
        return default
    raise InstallError(f"{spec} has several programs ({', '.join(sorted(bins))}) and the registry names none")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def install_pypi(package: Package, tmp: Path, final: Path, progress: Progress) -> list[str]:
    """A venv in `tmp` with `name==version`; the argv of its console script (under `final`)."""
    name = package.name.split("[", 1)[0]
    uv = shutil.which("uv")
    python = tmp / "bin" / "python"
    if uv is not None:
        run_tool([uv, "venv", "--quiet", str(tmp)], tmp.parent, progress, "uv venv")
        run_tool(
            [uv, "pip", "install", "--python", str(python), package.spec],
            tmp,
            progress,
            f"uv pip install {package.spec}",
        )
    else:
        try:
            run_tool([sys.executable, "-m", "venv", str(tmp)], tmp.parent, progress, "python -m venv")
        except InstallError as exc:
            raise InstallError(f"{exc}\n  {PYTHON_HELP}") from None
        run_tool(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", package.spec],
            tmp,
            progress,
            f"pip install {package.spec}",
        )
    dist_info = _dist_info(tmp, name, package.version)
    scripts = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    scripts.optionxform = str  # type: ignore[assignment,method-assign]  # script names keep their case
    with contextlib.suppress(OSError, configparser.Error):
        scripts.read_string((dist_info / "entry_points.txt").read_text("utf-8"))
    found = dict(scripts.items("console_scripts")) if scripts.has_section("console_scripts") else {}
    if not found:
        raise InstallError(f"{package.spec} has no console script to run")
    choice = _choose(found, package.cmd, name, package.spec)
    if not (tmp / "bin" / choice).is_file():
        raise InstallError(f"{package.spec}: its script {choice!r} was not installed")
    _repoint_scripts(tmp / "bin", tmp, final)
    return [str(final / "bin" / choice)]


def _dist_info(venv: Path, name: str, version: str) -> Path:
    """The installed distribution's metadata folder, its version checked against the pin."""
    wanted = _normalized(name)
    for site in sorted(venv.glob("lib*/python*/site-packages")):
        for info in site.glob("*.dist-info"):
            dist, _, dist_version = info.name.removesuffix(".dist-info").rpartition("-")
            if _normalized(dist) == wanted:
                if dist_version != version:
                    raise InstallError(f"pip installed {name} {dist_version}, not the pinned {version}")
                return info
    raise InstallError(f"{name} {version} is not in the virtual environment after the install")


def _repoint_scripts(bin_folder: Path, tmp: Path, final: Path) -> None:
    """Scripts' first lines name `tmp`'s interpreter (pip and uv write absolute shebangs, or a `/bin/sh` line that
    execs it for long paths): made to name `final`'s."""
    old, new = str(tmp).encode(), str(final).encode()
    for script in bin_folder.iterdir():
        if script.is_symlink() or not script.is_file() or script.stat().st_size > 1024 * 1024:
            continue
        data = script.read_bytes()
        head, sep, rest = data.partition(b"\n")
        second, sep2, body = rest.partition(b"\n")
        if data.startswith(b"#!") and (old in head or old in second):
            script.write_bytes(head.replace(old, new) + sep + second.replace(old, new) + sep2 + body)
        elif script.name.startswith("activate") and old in data:
            script.write_bytes(data.replace(old, new))
