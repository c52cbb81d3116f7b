"""`acp-tui agents` and `acp-tui add`: the registry from the command line (the entry only dispatches here).

acp-tui agents [--installed | --available] [WORD] [--refresh]
acp-tui agents --update [ID] [--refresh]     what would change, then each update (the old kept until the
                                             new one has started once)
acp-tui agents --remove ID
acp-tui add ID [--preview] [--kind npx|uvx|binary] [--trust-unverified] [--refresh]
"""

from __future__ import annotations

import optparse
import os
import sys
from collections.abc import Sequence
from typing import Literal, TextIO

from acp_tui.config import Settings
from acp_tui.registry.entries import KINDS
from acp_tui.registry.installs import InstallError, Interrupted, Plan, install, make_plan, remove
from acp_tui.registry.listing import Listing, listing_lines
from acp_tui.registry.manifest import agents_root, installed_agent, installed_agents, sweep
from acp_tui.registry.progress import TerminalProgress
from acp_tui.registry.source import Index, IndexError_, load_index, location
from acp_tui.sanitize import escape_controls

__all__ = ["run_subcommand", "install_plan"]

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 127


def _agents_parser() -> optparse.OptionParser:
    parser = optparse.OptionParser(
        prog="acp-tui agents",
        usage="%prog [--installed|--available] [WORD] [--update [ID]] [--remove ID] [--refresh]",
        description="Every agent acp-tui knows: config.toml's, the installed registry agents, the ACP registry's "
        "others, and the well-known ones.",
    )
    parser.add_option("--installed", action="store_true", default=False, help="only the installed registry agents")
    parser.add_option(
        "--available", action="store_true", default=False, help="only the registry's agents not installed"
    )
    parser.add_option("--update", action="store_true", default=False, help="update every installed agent, or ID")
    parser.add_option("--remove", metavar="ID", help="remove an installed registry agent (every version of it)")
    parser.add_option("--refresh", action="store_true", default=False, help="fetch the index now, not the day-old copy")
    return parser


def _add_parser() -> optparse.OptionParser:
    parser = optparse.OptionParser(
        prog="acp-tui add",
        usage="%prog ID [--preview] [--kind npx|uvx|binary] [--trust-unverified] [--refresh]",
        description="Install an agent of the ACP registry, pinned to the registry's version, into acp-tui's data "
        "folder; then acp-tui ID runs it.",
    )
    parser.add_option("--preview", action="store_true", default=False, help="the entry's preview release")
    parser.add_option("--kind", type="choice", choices=KINDS, metavar="|".join(KINDS), help="which distribution")
    parser.add_option(
        "--trust-unverified",
        action="store_true",
        default=False,
        help="install an archive the registry gives no sha256 for (acp-tui cannot check what it downloads)",
    )
    parser.add_option("--refresh", action="store_true", default=False, help="fetch the index now, not the day-old copy")
    return parser


def run_subcommand(name: str, args: Sequence[str], settings: Settings, out: TextIO | None = None) -> int:
    """`agents` or `add` with their arguments; the exit status."""
    out = out or sys.stdout
    try:
        sweep()
        return _agents(args, settings, out) if name == "agents" else _add(args, settings, out)
    except Interrupted as exc:
        print("acp-tui: interrupted; nothing was left half-installed", file=sys.stderr)
        return 128 + exc.number
    except KeyboardInterrupt:
        print("\nacp-tui: interrupted; nothing was left half-installed", file=sys.stderr)
        return 130


def _parse(parser: optparse.OptionParser, args: Sequence[str]) -> tuple[optparse.Values, list[str]] | int:
    try:
        return parser.parse_args(list(args))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE


def _index(settings: Settings, refresh: bool) -> Index | None:
    where = location(settings.registry)
    try:
        return load_index(where, refresh=refresh)
    except IndexError_ as exc:
        print(f"acp-tui: {exc}", file=sys.stderr)
        return None


def _agents(args: Sequence[str], settings: Settings, out: TextIO) -> int:
    parsed = _parse(_agents_parser(), args)
    if isinstance(parsed, int):
        return parsed
    options, rest = parsed
    if options.installed and options.available:
        print("acp-tui agents: --installed or --available, not both", file=sys.stderr)
        return EXIT_USAGE
    if len(rest) > 1:
        print("acp-tui agents: one WORD (or ID) at most", file=sys.stderr)
        return EXIT_USAGE
    word = rest[0] if rest else None
    if options.remove is not None:
        if options.update or word:
            print("acp-tui agents: --remove ID alone", file=sys.stderr)
            return EXIT_USAGE
        if not remove(options.remove):
            print(f"acp-tui: no registry agent {escape_controls(options.remove)!r} is installed", file=sys.stderr)
            return EXIT_FAILED
        print(f"Removed {options.remove} (every version, from {agents_root()}).", file=out)
        return 0
    if options.update:
        return _update(word, settings, options.refresh, out)
    index = _index(settings, options.refresh)
    show: Literal["all", "installed", "available"] = (
        "installed" if options.installed else "available" if options.available else "all"
    )
    listing = Listing(settings, installed_agents(), index, show=show, word=word)
    for line in listing_lines(listing):
        print(line, file=out)
    return 0 if index is not None or options.installed else EXIT_FAILED


def _update(agent_id: str | None, settings: Settings, refresh: bool, out: TextIO) -> int:
    """What would change, then each change; the exit status is 1 when one failed."""
    installed = installed_agents()
    if agent_id is not None:
        installed = [agent for agent in installed if agent.id == agent_id]
        if not installed:
            print(f"acp-tui: no registry agent {escape_controls(agent_id)!r} is installed", file=sys.stderr)
            return EXIT_FAILED
    index = _index(settings, refresh)
    if index is None:
        return EXIT_FAILED
    for note in index.notes:
        print(f"acp-tui: {note}", file=sys.stderr)
    plans: list[tuple[str, Plan]] = []
    for agent in installed:
        entry = index.find(agent.id)
        if entry is None:
            print(f"  {agent.id} {agent.version}: no longer in the registry (kept)", file=out)
            continue
        release = entry.preview if agent.preview and entry.preview is not None else entry.release
        if release.version == agent.version:
            continue
        try:
            kind = next((k for k in release.kinds() if k == agent.kind), None)
            plan = make_plan(entry, preview=agent.preview, kind=kind, trust_unverified=not agent.verified)
        except InstallError as exc:
            print(f"  {agent.id} {agent.version}: cannot update to {release.version}: {exc}", file=out)
            continue
        plans.append((agent.version, plan))
    if not plans:
        print(
            "Every installed registry agent is up to date." if installed else "No registry agents installed.", file=out
        )
        return 0
    print("Updates:", file=out)
    for old, plan in plans:
        print(f"  {plan.entry.id} {old} -> {plan.release.version} ({plan.kind})", file=out)
    failed = 0
    for _old, plan in plans:
        failed += install_plan(plan, index, out) != 0
    return EXIT_FAILED if failed else 0


def install_plan(plan: Plan, index: Index, out: TextIO) -> int:
    """Install one plan, saying what and where; the exit status."""
    print(f"Installing {plan.describe()} into {agents_root() / plan.entry.id}", file=out, flush=True)
    progress = TerminalProgress()
    try:
        agent, note = install(plan, index.where, progress)
    except InstallError as exc:
        print(f"acp-tui: cannot install {plan.entry.id} {plan.release.version}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"acp-tui: cannot install {plan.entry.id}: {exc.strerror or exc}: {exc.filename or ''}", file=sys.stderr)
        return EXIT_FAILED
    if note:
        print(note, file=out)
    print(f"Installed {agent.id} {agent.version}: run it with  acp-tui {agent.id}", file=out)
    return 0


def _add(args: Sequence[str], settings: Settings, out: TextIO) -> int:
    parsed = _parse(_add_parser(), args)
    if isinstance(parsed, int):
        return parsed
    options, rest = parsed
    if len(rest) != 1:
        print("acp-tui add: name one agent (its registry id; see acp-tui agents)", file=sys.stderr)
        return EXIT_USAGE
    agent_id = rest[0]
    index = _index(settings, options.refresh)
    if index is None:
        return EXIT_FAILED
    for note in index.notes:
        print(f"acp-tui: {note}", file=sys.stderr)
    entry = index.find(agent_id)
    if entry is None:
        broken = index.unusable_entry(agent_id)
        if broken is not None:
            print(
                f"acp-tui: {escape_controls(agent_id)} is in the registry but unusable: {broken.reason}",
                file=sys.stderr,
            )
        else:
            print(
                f"acp-tui: no agent {escape_controls(agent_id)!r} in the registry ({index.origin}); see acp-tui agents",
                file=sys.stderr,
            )
        return EXIT_NOT_FOUND
    try:
        plan = make_plan(entry, preview=options.preview, kind=options.kind, trust_unverified=options.trust_unverified)
    except InstallError as exc:
        print(f"acp-tui: {exc}", file=sys.stderr)
        return EXIT_FAILED
    current = installed_agent(entry.id)
    if current is not None and current.version == plan.release.version:
        print(f"{entry.id} {current.version} is already installed: run it with  acp-tui {entry.id}", file=out)
        return 0
    target = plan.release.binary_here()
    if plan.kind == "binary" and target is not None and target.sha256 is None:
        print(
            "acp-tui: warning: the registry gives no sha256 for this archive; installing it unverified, as told",
            file=sys.stderr,
        )
    return install_plan(plan, index, out)


def interactive() -> bool:
    """Both ends are a terminal: a question can be asked."""
    return os.isatty(0) and os.isatty(1)
