"""The registry's core without a network or an install tool: the shipped schema and index, entries judged,
the index's cache, safe unpacking, the choice of distribution, and installed agents as named ones."""

from __future__ import annotations

import hashlib
import io
import json
import sys
import tarfile
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from acp_tui.config import NamedAgent, Settings
from acp_tui.registry import source
from acp_tui.registry.archives import unpack
from acp_tui.registry.entries import Entry, Unusable, parse_entry, parse_index, platform_key
from acp_tui.registry.installs import InstallError, make_plan
from acp_tui.registry.launching import Missing, registry_agents, with_installed
from acp_tui.registry.listing import Listing, listing_lines
from acp_tui.registry.manifest import InstalledAgent, Pointer, agents_root, manifest_bytes, write_pointer
from tests.support.registry_server import fixture_index, serve_registry

pytestmark = pytest.mark.usefixtures("private_dirs")  # the app's folders, private to each test

DATA = resources.files("acp_tui.registry") / "data"


def entry(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "an-agent",
        "name": "An agent",
        "version": "1.2.3",
        "description": "does things",
        "distribution": {"npx": {"package": "an-agent@1.2.3"}},
    }
    return {**base, **fields}


def test_the_shipped_files_are_what_provenance_says() -> None:
    provenance = DATA.joinpath("PROVENANCE").read_text("utf-8")
    sums = dict(line.split()[1:3] for line in provenance.splitlines() if line.startswith("sha256 "))
    assert set(sums) == {"agent.schema.json", "registry.schema.json", "registry.json"}
    for name, digest in sums.items():
        assert hashlib.sha256(DATA.joinpath(name).read_bytes()).hexdigest() == digest, name
    assert "github.com/agentclientprotocol/registry" in provenance and "snapshot " in provenance


def test_the_shipped_index_validates_whole() -> None:
    entries, unusable, left_out = parse_index(json.loads(DATA.joinpath("registry.json").read_bytes()))
    assert unusable == [] and left_out == 0
    assert {"claude-code-acp", "codex-acp", "gemini"} <= {e.id for e in entries} and len(entries) == 11


def test_the_fixture_index_validates_against_the_shipped_schema() -> None:
    with serve_registry() as state:
        document = fixture_index(state, sys.executable)
    entries, unusable, _ = parse_index(document)
    assert unusable == []
    assert [(e.id, e.release.kinds()) for e in entries] == [
        ("claude-acp", ("npx",)),
        ("tiny-py", ("uvx",)),
        ("tiny-bin", ("binary",)),
        ("tiny-bin-wrong", ("binary",)),
        ("tiny-bin-nosum", ("binary",)),
    ]
    tiny = entries[2].release.binary_here()
    assert tiny is not None and tiny.sha256 is not None and entries[4].release.binary_here().sha256 is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"version": "1.0.0/../../x"}, "version '1.0.0/../../x' is not a plain version number"),
        ({"id": "Bad Id"}, "id: 'Bad Id' does not match"),
        ({"description": ""}, "description: '' should be non-empty"),
        ({"distribution": {"npx": {"package": "an-agent@latest"}}}, "is not pinned to one exact version"),
        ({"distribution": {"npx": {"package": "an-agent@^1.2.0"}}}, "is not pinned to one exact version"),
        ({"distribution": {"uvx": {"package": "agent>=1.0"}}}, "is not a package name acp-tui can install"),
        ({"distribution": {"pip": {"package": "a==1.0.0"}}}, "distribution: Additional properties are not allowed"),
        (
            {
                "distribution": {
                    "binary": {"linux-x86_64": {"archive": "https://x/a.tgz", "cmd": "./a", "sha256": "zz"}}
                }
            },
            "distribution.binary.linux-x86_64.sha256: not 64 hexadecimal digits",
        ),
        ({"preview": {"version": "2.0.0", "distribution": {}}}, "preview: distribution: {} should be non-empty"),
    ],
)
def test_an_entry_that_does_not_validate_is_unusable_with_the_reason(fields: dict[str, Any], reason: str) -> None:
    result = parse_entry(entry(**fields))
    assert isinstance(result, Unusable)
    assert reason in result.reason


def test_packages_are_pinned_from_the_spec_or_the_entrys_version_and_preview_is_read() -> None:
    scoped = parse_entry(entry(distribution={"npx": {"package": "@scope/pkg@1.2.3", "args": ["--acp"]}}))
    assert isinstance(scoped, Entry) and scoped.release.npx is not None
    assert (scoped.release.npx.name, scoped.release.npx.version, scoped.release.npx.args) == (
        "@scope/pkg",
        "1.2.3",
        ("--acp",),
    )
    bare = parse_entry(entry(distribution={"uvx": {"package": "kimi-cli"}}))
    assert isinstance(bare, Entry) and bare.release.uvx is not None and bare.release.uvx.spec == "kimi-cli==1.2.3"
    preview = parse_entry(
        entry(preview={"version": "1.3.0-rc.1", "distribution": {"npx": {"package": "an-agent@1.3.0-rc.1"}}})
    )
    assert isinstance(preview, Entry) and preview.preview is not None and preview.preview.version == "1.3.0-rc.1"


def test_a_second_entry_with_an_id_and_entries_past_the_cap_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("acp_tui.registry.entries.MAX_ENTRIES", 3)
    entries, unusable, left_out = parse_index(
        {"agents": [entry(), entry(), entry(id="b"), entry(id="c"), entry(id="d")]}
    )
    assert [e.id for e in entries] == ["an-agent", "b"] and [u.reason for u in unusable] == [
        "a second entry with this id (the first one counts)"
    ]
    assert left_out == 2
    with pytest.raises(ValueError, match="no 'agents' list"):
        parse_index({"agents": {}})


def test_platform_keys_are_the_registrys() -> None:
    assert platform_key("linux", "x86_64") == "linux-x86_64"
    assert platform_key("darwin", "arm64") == "darwin-aarch64"
    assert platform_key("win32", "AMD64") == "windows-x86_64"


# -- the index's source --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("private_dirs")
def test_location_env_wins_over_config_over_the_published_url() -> None:
    assert source.location(None, {}) == source.DEFAULT_URL
    assert source.location("/srv/mirror.json", {}) == "/srv/mirror.json"
    assert source.location("/srv/mirror.json", {source.ENV: "http://m/r.json"}) == "http://m/r.json"


@pytest.mark.usefixtures("private_dirs")
def test_a_days_freshness_then_a_conditional_get(tmp_path: Path) -> None:
    clock = [1_000_000.0]
    with serve_registry() as state:
        state.set_index({"version": "1.0.0", "agents": [entry()], "extensions": []}, '"a"')
        first = source.load_index(state.url, now=lambda: clock[0])
        clock[0] += source.FRESH_FOR - 1
        source.load_index(state.url, now=lambda: clock[0])
        assert [seen.status for seen in state.seen] == [200]  # fresh: not asked
        clock[0] += 2
        state.set_index({"version": "1.0.0", "agents": [entry(), entry(id="b")], "extensions": []}, '"b"')
        later = source.load_index(state.url, now=lambda: clock[0])
        assert [(seen.status, seen.if_none_match) for seen in state.seen] == [(200, None), (200, '"a"')]
    assert [e.id for e in first.entries] == ["an-agent"] and [e.id for e in later.entries] == ["an-agent", "b"]
    offline = source.load_index(state.url, offline=True, now=lambda: clock[0])
    assert [e.id for e in offline.entries] == ["an-agent", "b"]


@pytest.mark.usefixtures("private_dirs")
def test_no_server_and_no_cache_is_the_shipped_copy_and_a_broken_file_is_an_error(tmp_path: Path) -> None:
    index = source.load_index("http://127.0.0.1:9/registry.json")
    assert index.find("claude-code-acp") is not None
    assert any("could not be reached" in note for note in index.notes)
    assert any("shipped with acp-tui (2026-02-07" in note for note in index.notes)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    with pytest.raises(source.IndexError_, match="is unusable"):
        source.load_index(str(bad))
    with pytest.raises(source.IndexError_, match="cannot read"):
        source.load_index(str(tmp_path / "none.json"))


# -- unpacking -----------------------------------------------------------------------------------------------


def _tar(tmp_path: Path, *members: tuple[tarfile.TarInfo, bytes]) -> Path:
    path = tmp_path / "a.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for info, body in members:
            info.size = len(body) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(body) if info.isfile() else None)
    return path


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(
    "member",
    [
        (tarfile.TarInfo("../escape"), b"x"),
        (tarfile.TarInfo("/etc/escape"), b"x"),
        (tarfile.TarInfo("a/../../escape"), b"x"),
        (_link("out", "/etc/passwd"), b""),
        (_link("out", "../../etc"), b""),
        (_link("hard", "/etc/passwd", tarfile.LNKTYPE), b""),
    ],
    ids=["dotdot", "absolute", "nested-dotdot", "symlink-absolute", "symlink-up", "hardlink"],
)
def test_a_tar_that_would_write_outside_its_folder_is_refused(
    tmp_path: Path, member: tuple[tarfile.TarInfo, bytes]
) -> None:
    into = tmp_path / "into"
    into.mkdir()
    with pytest.raises(InstallError):
        unpack(_tar(tmp_path, member), into)
    assert not (tmp_path / "escape").exists()


def test_a_zip_is_unpacked_with_exec_bits_and_one_escaping_is_refused(tmp_path: Path) -> None:
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w") as archive:
        info = zipfile.ZipInfo("bin/agent")
        info.external_attr = 0o100755 << 16
        archive.writestr(info, "#!/bin/sh\n")
    into = tmp_path / "into"
    into.mkdir()
    unpack(good, into)
    assert (into / "bin" / "agent").stat().st_mode & 0o100
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("../../escape", "x")
    with pytest.raises(InstallError, match="outside its folder"):
        unpack(bad, tmp_path / "into")
    assert not (tmp_path / "escape").exists()
    not_archive = tmp_path / "plain"
    not_archive.write_bytes(b"hello")
    with pytest.raises(InstallError, match="not an archive"):
        unpack(not_archive, into)


# -- which distribution ----------------------------------------------------------------------------------------


def _binary(sha: str | None) -> dict[str, Any]:
    target: dict[str, Any] = {"archive": "https://example.org/a.tar.gz", "cmd": "./a"}
    if sha:
        target["sha256"] = sha
    return {platform_key(): target}


def test_the_plan_prefers_a_verified_archive_then_packages_then_an_unverified_archive() -> None:
    both = parse_entry(entry(distribution={"npx": {"package": "an-agent@1.2.3"}, "binary": _binary("a" * 64)}))
    assert isinstance(both, Entry)
    assert make_plan(both, preview=False, kind=None, trust_unverified=False).kind == "binary"
    assert make_plan(both, preview=False, kind="npx", trust_unverified=False).kind == "npx"
    unverified = parse_entry(entry(distribution={"uvx": {"package": "an-agent==1.2.3"}, "binary": _binary(None)}))
    assert isinstance(unverified, Entry)
    assert make_plan(unverified, preview=False, kind=None, trust_unverified=False).kind == "uvx"
    only = parse_entry(entry(distribution={"binary": _binary(None)}))
    assert isinstance(only, Entry)
    with pytest.raises(InstallError, match="--trust-unverified"):
        make_plan(only, preview=False, kind=None, trust_unverified=False)
    assert (
        make_plan(only, preview=False, kind=None, trust_unverified=True).describe().endswith("(UNVERIFIED: no sha256)")
    )
    with pytest.raises(InstallError, match="no preview release"):
        make_plan(only, preview=True, kind=None, trust_unverified=True)
    with pytest.raises(InstallError, match="has no uvx distribution"):
        make_plan(only, preview=False, kind="uvx", trust_unverified=True)


def test_npm_missing_is_said_with_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    npm_only = parse_entry(entry())
    assert isinstance(npm_only, Entry)
    with pytest.raises(InstallError, match=r"installed with npm, and install Node.js \(npm comes with it\)"):
        make_plan(npm_only, preview=False, kind=None, trust_unverified=False)


# -- installed agents ----------------------------------------------------------------------------------------


def _installed(agent_id: str, version: str = "1.0.0") -> InstalledAgent:
    agent = InstalledAgent(agent_id, "Name", version, "binary", ("/opt/x/agent", "--acp"), {"K": "v"})
    folder = agents_root() / agent_id / version
    folder.mkdir(parents=True)
    (folder / "acp-tui-install.json").write_bytes(manifest_bytes(agent))
    write_pointer(agent_id, Pointer(version))
    return agent


@pytest.mark.usefixtures("private_dirs")
def test_installed_agents_are_named_agents_unless_config_names_one_so() -> None:
    _installed("tiny")
    _installed("mine")
    settings = Settings(agents={"mine": NamedAgent(command=["my-own"])})
    merged = with_installed(settings)
    assert merged.agents["tiny"] == NamedAgent(command=["/opt/x/agent", "--acp"], env={"K": "v"})
    assert merged.agents["mine"].command == ["my-own"]
    half = agents_root() / "half" / "1.0.0"
    half.mkdir(parents=True)  # a version folder without its manifest is no install
    write_pointer("half", Pointer("1.0.0"))
    assert "half" not in with_installed(settings).agents


@pytest.mark.usefixtures("private_dirs")
def test_a_registry_id_not_installed_is_missing_with_the_add_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"version": "1.0.0", "agents": [entry(id="far-agent")], "extensions": []}))
    monkeypatch.setenv(source.ENV, str(index))
    missing = registry_agents(Settings(), ["far-agent"], ask=False)
    assert isinstance(missing, Missing) and missing.code == 127
    assert missing.message.endswith("not installed: install it with  acp-tui add far-agent")
    assert isinstance(registry_agents(Settings(), ["other-word"], ask=False), Settings)  # not the registry's
    assert isinstance(registry_agents(Settings(), ["far-agent", "--flag"], ask=False), Settings)  # a command line


@pytest.mark.usefixtures("private_dirs")
def test_the_list_merges_the_catalogue_and_shows_updates() -> None:
    installed = _installed("claude-code-acp", "0.15.0")
    index = source._index(DATA.joinpath("registry.json").read_bytes(), "shipped", (), "shipped")
    lines = listing_lines(Listing(Settings(), [installed], index))
    text = "\n".join(lines)
    assert (
        "claude-code-acp  0.15.0  binary" in text and "update: 0.16.0 (acp-tui agents --update claude-code-acp)" in text
    )
    assert "  gemini  Gemini CLI 0.27.3  (npx)  Google's official CLI for Gemini  [well-known: gemini]" in lines
    well_known = lines[lines.index("Well-known agents not in the registry (acp-tui NAME runs one from PATH):") + 1 :]
    assert [line.split()[0] for line in well_known] == ["goose", "cursor", "pi"]  # the rest are the registry's
    only = listing_lines(Listing(Settings(), [installed], index, show="available", word="QWEN"))
    assert [line.split()[0] for line in only[1:]] == ["qwen-code"]
