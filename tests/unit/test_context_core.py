"""The prompt-context core (acp_tui.context): the file index, the matcher, mention tokens, capabilities, and
the blocks a prompt's mentions become, validated against the official schemas and the negotiated capabilities.
"""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.context import blocks as blocks_module
from acp_tui.context import matcher as matcher_module
from acp_tui.context.blocks import (
    EMBED_LIMIT,
    PromptBlockError,
    PromptBlocks,
    build_prompt_blocks,
    describe_block,
    disallowed_blocks,
)
from acp_tui.context.capabilities import PromptCapabilities
from acp_tui.context.index import Corpus, FileIndex, _Lists
from acp_tui.context.matcher import Matcher, match_positions, normalise_query, wants_hidden
from acp_tui.context.mentions import (
    Mention,
    PromptSubmission,
    mention_query,
    mention_token,
    mentions_in_text,
    parse_token,
)
from acp_tui.protocol import codec, methods
from acp_tui.protocol.v2 import EmbeddedResource, ImageContent, ResourceLink, TextContent
from tests.support.paths import REPO
from tests.support.schema_check import validate_client_message

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(64)
HOSTILE_NAMES = [
    "new\nline.txt",
    "esc\x1b]52;c;aGk=\x07.txt",
    "[bold red]markup[link=x].md",
    "bidi\u202eexe.txt",
    "zero\u200bwidth.py",
    'quote"and\\back.txt',
    "sp ace.txt",
    "x" * 240 + ".txt",
]


def index_of(root: Path, **kwargs: Any) -> Corpus:
    index = FileIndex(root, **kwargs)
    index.start()
    assert index.wait(30)
    return index.corpus


def touch(root: Path, *paths: str, data: bytes = b"x") -> None:
    for relative in paths:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


# -- the index ------------------------------------------------------------------------------------------


def test_index_respects_gitignore_like_git(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.txt\n")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n!keep.log\nnode_modules\n")
    touch(
        tmp_path,
        "src/app.py",
        "src/gen/out.tmp",
        "build/out.o",
        "a.log",
        "keep.log",
        "node_modules/x/i.js",
        "secret.txt",
        "docs/readme.md",
        ".git/HEAD",
    )
    (tmp_path / "src" / ".gitignore").write_text("*.tmp\n")
    corpus = index_of(tmp_path)
    assert corpus.status == "complete"
    paths = set(corpus.paths[: corpus.size])
    assert {"src/", "src/app.py", "src/gen/", "keep.log", "docs/", "docs/readme.md"} <= paths
    for ignored in (
        "build/",
        "build/out.o",
        "a.log",
        "node_modules/",
        "node_modules/x/i.js",
        "secret.txt",
        "src/gen/out.tmp",
        ".git/",
        ".git/HEAD",
    ):
        assert ignored not in paths, ignored


def test_gitignore_of_a_parent_directory_applies_to_a_session_in_a_subdirectory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.pyc\n/pkg/generated/\n")
    touch(tmp_path, "pkg/mod.py", "pkg/mod.pyc", "pkg/generated/x.py")
    corpus = index_of(tmp_path / "pkg")
    assert set(corpus.paths) == {"mod.py"}


def test_a_session_inside_an_ignored_directory_still_indexes_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n")
    touch(tmp_path, "build/out.txt")
    assert set(index_of(tmp_path / "build").paths) == {"out.txt"}


def test_hidden_entries_are_indexed_last_and_matched_only_when_asked_for(tmp_path: Path) -> None:
    touch(tmp_path, ".github/workflows/ci.yml", ".env", "src/.eslintrc", "src/main.py")
    corpus = index_of(tmp_path)
    visible = [corpus.paths[i] for i in corpus.visible[: corpus.visible_size]]
    assert visible == ["src/", "src/main.py"]
    hidden_at = [corpus.paths.index(p) for p in (".env", ".github/", "src/.eslintrc")]
    assert min(hidden_at) > max(corpus.paths.index(p) for p in visible)  # ranked after every visible entry
    matcher = Matcher()
    assert [m.path for m in matcher.search(corpus, "yml")] == []
    assert [m.path for m in matcher.search(corpus, ".gi")][0] == ".github/"
    assert ".github/workflows/ci.yml" in [m.path for m in matcher.search(corpus, ".ci.yml")]
    assert "src/.eslintrc" in [m.path for m in matcher.search(corpus, "src/.es")]
    assert [m.path for m in matcher.search(corpus, "")] == ["src/", "src/main.py"]


def test_directories_are_entries_with_a_trailing_slash(tmp_path: Path) -> None:
    touch(tmp_path, "a/b/c.txt")
    (tmp_path / "empty").mkdir()
    assert index_of(tmp_path).paths == ["a/", "a/b/", "empty/", "a/b/c.txt"]  # ranked: shorter first


def test_symlink_loops_are_listed_never_followed(tmp_path: Path) -> None:
    touch(tmp_path, "src/app.py")
    os.symlink("..", tmp_path / "src" / "up")
    os.symlink(".", tmp_path / "self")
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")  # a -> b -> a: a loop that stat() cannot resolve
    os.symlink(tmp_path / "src", tmp_path / "src-link")
    corpus = index_of(tmp_path, time_budget=5)
    assert corpus.status == "complete"
    assert set(corpus.paths) == {"src/", "src/app.py", "src/up/", "self/", "a", "b", "src-link/"}


def test_hostile_file_names_are_indexed_exactly(tmp_path: Path) -> None:
    for name in HOSTILE_NAMES:
        (tmp_path / name).write_text("x")
    raw = os.fsencode(str(tmp_path)) + b"/bad\xff\xfebytes.txt"
    fd = os.open(raw, os.O_CREAT | os.O_WRONLY, 0o644)
    os.close(fd)
    corpus = index_of(tmp_path)
    assert set(corpus.paths) == {*HOSTILE_NAMES, os.fsdecode(b"bad\xff\xfebytes.txt")}
    matcher = Matcher()
    assert [m.path for m in matcher.search(corpus, "newline")] == ["new\nline.txt"]
    assert [m.path for m in matcher.search(corpus, "[bold]")] == ["[bold red]markup[link=x].md"]


def test_a_huge_tree_stops_at_the_cap_and_says_so(tmp_path: Path) -> None:
    touch(tmp_path, *(f"d{i}/f{j}.txt" for i in range(5) for j in range(10)))
    corpus = index_of(tmp_path, max_entries=20)
    assert corpus.status == "truncated" and corpus.size == 20
    assert "20 entries" in corpus.reason
    timed = index_of(tmp_path, time_budget=0.0)
    assert timed.status == "truncated" and "after 0 s" in timed.reason


def test_a_missing_root_fails_with_a_reason(tmp_path: Path) -> None:
    corpus = index_of(tmp_path / "gone")
    assert corpus.status == "failed" and corpus.size == 0 and "cannot read" in corpus.reason


def test_the_first_build_streams_and_a_rebuild_keeps_the_old_corpus_until_done(tmp_path: Path) -> None:
    touch(tmp_path, *(f"d{i}/f{j}.txt" for i in range(30) for j in range(200)))
    published: list[Corpus] = []
    index = FileIndex(tmp_path)
    index.on_publish = lambda: published.append(index.corpus)
    assert index.corpus.size == 0 and not index.corpus.complete
    index.start()
    assert index.wait(30)
    assert any(not c.complete and c.size > 0 for c in published), "no partial corpus was published"
    final = index.corpus
    assert final.complete and final.masks is not None and final.size == 30 + 30 * 200
    published.clear()
    touch(tmp_path, "new.txt")
    index.refresh()
    assert index.wait(30)
    assert all(c.complete for c in published)  # a rebuild never replaces a complete corpus by a partial one
    assert "new.txt" in index.corpus.paths


# -- the matcher ----------------------------------------------------------------------------------------


def reference(paths: list[str], query: str) -> set[str]:
    """Brute force: the visible (or, for a dotted query, all) paths with `query` as a subsequence."""
    q = normalise_query(query)
    found = set()
    for path in paths:
        if not wants_hidden(q) and (path.startswith(".") or "/." in path):
            continue
        at = 0
        lowered = path.lower()
        for char in q:
            at = lowered.find(char, at) + 1
            if at == 0:
                break
        else:
            found.add(path)
    return found


def sample_paths(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = ["app", "core", "util", "Model", "view", "test", "data", "api", "index", "prompt", "widget", ".cfg"]
    paths: set[str] = set()
    while len(paths) < count:
        depth = rng.randint(0, 3)
        parts = [rng.choice(words) + str(rng.randint(0, 3)) for _ in range(depth)]
        parts.append(f"{rng.choice(words)}_{rng.choice(words)}.{rng.choice(['py', 'md', 'ts'])}")
        paths.add("/".join(parts))
    return sorted(paths)


@pytest.mark.parametrize("few_occurrences", [4000, 0])
def test_results_are_exactly_the_subsequence_matches_whatever_the_typing_order(
    few_occurrences: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matcher_module, "_FEW_OCCURRENCES", few_occurrences)  # by position, or by scanning
    paths = sample_paths(3000)
    corpus = Corpus.from_paths(paths)
    plain = Corpus(
        corpus.paths,
        corpus.lower,
        corpus.base,
        corpus.base_start,
        corpus.visible,
        corpus.size,
        corpus.visible_size,
        corpus.generation,
        "complete",
    )  # no bitmasks: the narrowing path
    rng = random.Random(3)
    for with_masks in (corpus, plain):
        matcher = Matcher()
        for word in ["appmodel", "core/test", "xyz", "view.py", "API", ".cfg", "u_i", "prompt_widget"]:
            typed = ""
            for char in word + "\b\b" + word[-2:]:  # type, backspace twice, retype
                typed = typed[:-1] if char == "\b" else typed + char
                found = {m.path for m in matcher.search(with_masks, typed, limit=100_000)}
                assert found == reference(paths, typed), (typed, with_masks.masks is not None)
        for _ in range(30):
            query = "".join(rng.choice("aeiopstmdv/._") for _ in range(rng.randint(1, 4)))
            assert {m.path for m in Matcher().search(with_masks, query, limit=100_000)} == reference(paths, query)


def test_a_growing_corpus_is_searched_in_its_new_part_too() -> None:
    lists = _Lists()
    matcher = Matcher()
    paths = sample_paths(500)
    for start in range(0, 500, 100):
        for path in paths[start : start + 100]:
            lists.add(path)
        corpus = lists.snapshot(1, "building", "")
        for query in ("a", "ap", "app", "appm"):
            assert {m.path for m in matcher.search(corpus, query, 10_000)} == reference(paths[: start + 100], query)


def test_ranking_puts_name_prefix_then_name_then_path_then_scattered_matches() -> None:
    corpus = Corpus.from_paths(
        [
            "docs/guide/application_notes.md",
            "src/widgets/app.py",
            "app/",
            "lib/mapper.py",
            "a/p/p.txt",
            "zapp_tool.py",
        ]
    )
    ranked = [m.path for m in Matcher().search(corpus, "app")]
    assert ranked == [
        "app/",
        "src/widgets/app.py",
        "docs/guide/application_notes.md",
        "zapp_tool.py",
        "lib/mapper.py",
        "a/p/p.txt",
    ]
    assert Matcher().search(corpus, "APP")[0].path == "app/"  # case-insensitive


def test_match_positions_prefer_the_last_component() -> None:
    assert match_positions("src/app/app.py", 8, "app") == (8, 9, 10)
    assert match_positions("src/main.py", 4, "sm") == (0, 4)
    assert match_positions("a/b.py", 2, "zz") == ()


# -- mention tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTILE_NAMES + ["src/app.py", "bad\udcff.txt"])
def test_tokens_are_printable_single_line_and_reversible(name: str) -> None:
    token = mention_token(name)
    assert token.isprintable() and "\n" not in token and "\x1b" not in token and "\u202e" not in token
    assert parse_token(token) == name


@given(st.text(min_size=1, max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_path_round_trips_through_its_token(path: str) -> None:
    token = mention_token(path)
    assert token.isprintable()
    assert parse_token(token) == path


def test_the_mention_being_typed_is_found_at_the_cursor() -> None:
    assert mention_query("look at @src/ap", 15) == mention_query("look at @src/ap more", 15)
    query = mention_query("look at @src/ap", 15)
    assert query is not None and (query.start, query.query) == (8, "src/ap")
    assert mention_query("mail me@example.com", 19) is None  # not at the start of a word
    assert mention_query("@a b", 4) is None  # the word ended
    quoted = mention_query('see @"my fi', 11)
    assert quoted is not None and quoted.query == "my fi" and quoted.quoted
    assert mention_query('see @"my file.txt" ', 19) is None
    assert mention_query("(@x", 3) is not None


def test_mentions_are_the_tokens_that_name_existing_paths(tmp_path: Path) -> None:
    touch(tmp_path, "src/app.py", "notes.", "my file.txt")
    text = 'fix @src/app.py, see @notes. and @"my file.txt"; not @missing.py nor me@src/app.py; again @src/app.py'
    mentions = mentions_in_text(text, tmp_path)
    assert mentions == (
        Mention("src/app.py", "@src/app.py"),
        Mention("notes.", "@notes."),
        Mention("my file.txt", '@"my file.txt"'),
    )
    assert mentions_in_text("@src/app.py", None) == ()
    assert mentions_in_text(f"@{tmp_path}/src/app.py", None)[0].path == f"{tmp_path}/src/app.py"


# -- capabilities ---------------------------------------------------------------------------------------


def init_v2(prompt: Any) -> methods.InitializeResponse:
    caps: dict[str, Any] = {"session": {} if prompt is None else {"prompt": prompt}}
    return methods.InitializeResponse(
        protocol_version=2, info=methods.Implementation(name="a", version="1"), capabilities=caps
    )


def init_v1(prompt: Any) -> methods.InitializeResponse:
    caps: dict[str, Any] = {} if prompt is None else {"promptCapabilities": prompt}
    return methods.InitializeResponse(protocol_version=1, agent_capabilities=caps)


@pytest.mark.parametrize(
    ("init", "expected"),
    [
        (None, PromptCapabilities()),
        (init_v2(None), PromptCapabilities()),
        (init_v2({"embeddedContext": {}, "image": {}}), PromptCapabilities(embedded_context=True, image=True)),
        (init_v2({"embeddedContext": None, "image": {}, "audio": {}}), PromptCapabilities(image=True, audio=True)),
        (init_v2({"image": "yes", "audio": 1}), PromptCapabilities()),
        (init_v2("nonsense"), PromptCapabilities()),
        (init_v1(None), PromptCapabilities()),
        (init_v1({"embeddedContext": True, "image": False}), PromptCapabilities(embedded_context=True)),
        (init_v1({"image": True, "audio": True}), PromptCapabilities(image=True, audio=True)),
        (init_v1({"image": {}, "embeddedContext": "true"}), PromptCapabilities()),
    ],
)
def test_prompt_capabilities_are_read_from_either_version(init: Any, expected: PromptCapabilities) -> None:
    assert PromptCapabilities.from_init(init) == expected
    if init is not None:
        assert PromptCapabilities.from_init(init, 2 if init.info is not None and init.info else 1) == expected


# -- blocks -----------------------------------------------------------------------------------------------

ALL_CAPABILITIES = [
    PromptCapabilities(),
    PromptCapabilities(embedded_context=True),
    PromptCapabilities(image=True),
    PromptCapabilities(embedded_context=True, image=True, audio=True),
]


def project(tmp_path: Path) -> Path:
    touch(tmp_path, "src/app.py", data=b"print('hi')\n")
    touch(tmp_path, "docs/guide.md", data=b"# Guide\n")
    touch(tmp_path, "shot.png", data=PNG)
    touch(tmp_path, "big.log", data=b"line\n" * (EMBED_LIMIT // 5 + 10))
    touch(tmp_path, "blob.bin", data=b"\x00\x01\x02binary")
    for name in HOSTILE_NAMES:
        touch(tmp_path, name, data=b"hostile\n")
    return tmp_path


def submission_for(root: Path, paths: list[str], text: str = "look") -> PromptSubmission:
    mentions = tuple(Mention.of(path) for path in paths)
    return PromptSubmission(" ".join([text, *(m.token for m in mentions)]), mentions)


def prompt_json(blocks: list[Any]) -> dict[str, Any]:
    params = methods.PromptRequest(session_id="s-1", prompt=blocks)
    result: dict[str, Any] = json.loads(
        codec.encode({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": params})
    )
    return result


def assert_sendable(blocks: list[Any], capabilities: PromptCapabilities) -> None:
    """What we would send is valid in both versions and carries only what the agent advertised."""
    message = prompt_json(blocks)
    for version in (1, 2):
        validate_client_message(message, version)
    assert disallowed_blocks(blocks, capabilities) == []


@pytest.mark.parametrize("capabilities", ALL_CAPABILITIES, ids=lambda c: c.describe())
def test_every_prompt_is_valid_and_within_the_capabilities(tmp_path: Path, capabilities: PromptCapabilities) -> None:
    root = project(tmp_path)
    paths = ["src/app.py", "docs/", "shot.png", "big.log", "blob.bin", *HOSTILE_NAMES]
    result = build_prompt_blocks(submission_for(root, paths), capabilities, root)
    assert isinstance(result, PromptBlocks)
    assert isinstance(result.blocks[0], TextContent) and len(result.blocks) == 1 + len(paths)
    assert_sendable(result.blocks, capabilities)
    kinds = [type(block).__name__ for block in result.blocks[1:]]
    if capabilities.embedded_context:
        assert kinds[0] == "EmbeddedResource"
        assert kinds[len(paths) - len(HOSTILE_NAMES) :] == ["EmbeddedResource"] * len(HOSTILE_NAMES)
    else:
        assert "EmbeddedResource" not in kinds
    assert kinds[1] == "ResourceLink"  # a directory is always a link
    assert kinds[2] == ("ImageContent" if capabilities.image else "ResourceLink")
    assert kinds[3] == kinds[4] == "ResourceLink"  # too big to embed; binary
    notes = " | ".join(result.notes)
    if capabilities.embedded_context:
        assert "@big.log is 1.3 MB" not in notes and "@big.log is 256 KB, over 256 KB" in notes
        assert "@blob.bin is binary" in notes
    if not capabilities.image:
        assert "does not accept images: @shot.png was sent as a link" in notes


def test_blocks_carry_uri_name_size_and_type(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = build_prompt_blocks(submission_for(root, ["src/app.py", "docs/"]), PromptCapabilities(), root)
    assert isinstance(result, PromptBlocks) and result.notes == ()
    message = prompt_json(result.blocks)
    assert message["params"]["prompt"][1:] == [
        {
            "type": "resource_link",
            "uri": (root / "src/app.py").as_uri(),
            "name": "src/app.py",
            "mimeType": "text/x-python",
            "size": 12,
        },
        {"type": "resource_link", "uri": (root / "docs").as_uri(), "name": "docs/", "mimeType": "inode/directory"},
    ]
    embedded = build_prompt_blocks(
        submission_for(root, ["src/app.py"]), PromptCapabilities(embedded_context=True), root
    )
    assert isinstance(embedded, PromptBlocks)
    assert prompt_json(embedded.blocks)["params"]["prompt"][1] == {
        "type": "resource",
        "resource": {"uri": (root / "src/app.py").as_uri(), "text": "print('hi')\n", "mimeType": "text/x-python"},
    }
    image = build_prompt_blocks(submission_for(root, ["shot.png"]), PromptCapabilities(image=True), root)
    assert isinstance(image, PromptBlocks)
    block = image.blocks[1]
    assert isinstance(block, ImageContent) and block.mime_type == "image/png"
    assert base64.b64decode(block.data) == PNG and block.uri == (root / "shot.png").as_uri()


def test_a_vanished_file_stops_the_prompt_before_anything_is_sent(tmp_path: Path) -> None:
    root = project(tmp_path)
    submission = submission_for(root, ["src/app.py", "docs/guide.md"])
    (root / "docs/guide.md").unlink()
    result = build_prompt_blocks(submission, PromptCapabilities(embedded_context=True), root)
    assert isinstance(result, PromptBlockError)
    assert result.message == "@docs/guide.md no longer exists; nothing was sent"
    os.symlink(root / "gone", root / "dangling")
    broken = build_prompt_blocks(submission_for(root, ["dangling"]), PromptCapabilities(), root)
    assert isinstance(broken, PromptBlockError) and "broken symbolic link" in broken.message


def test_limits_link_what_is_too_big_with_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    monkeypatch.setattr(blocks_module, "IMAGE_LIMIT", 10)
    result = build_prompt_blocks(submission_for(root, ["shot.png"]), PromptCapabilities(image=True), root)
    assert isinstance(result, PromptBlocks) and isinstance(result.blocks[1], ResourceLink)
    assert result.notes == ("@shot.png is 80 B, over 10 B: sent as a link",)
    monkeypatch.setattr(blocks_module, "TOTAL_EMBED_LIMIT", 20)
    touch(root, "a.txt", "b.txt", data=b"0123456789ab")
    both = build_prompt_blocks(
        submission_for(root, ["a.txt", "b.txt"]), PromptCapabilities(embedded_context=True), root
    )
    assert isinstance(both, PromptBlocks)
    assert [type(b).__name__ for b in both.blocks[1:]] == ["EmbeddedResource", "ResourceLink"]
    assert "already embeds 12 B" in both.notes[0]


def test_hostile_names_stay_exact_on_the_wire_and_sanitised_in_notes(tmp_path: Path) -> None:
    root = project(tmp_path)
    raw = os.fsencode(str(root)) + b"/bad\xff.txt"
    with open(raw, "wb") as handle:
        handle.write(b"\x00binary")
    names = [*HOSTILE_NAMES, os.fsdecode(b"bad\xff.txt")]
    result = build_prompt_blocks(submission_for(root, names), PromptCapabilities(embedded_context=True), root)
    assert isinstance(result, PromptBlocks)
    assert_sendable(result.blocks, PromptCapabilities(embedded_context=True))
    link = result.blocks[-1]
    assert isinstance(link, ResourceLink) and link.uri.endswith("/bad%FF.txt") and link.name == "bad\ufffd.txt"
    for note in result.notes:
        assert note.isprintable() and "\x1b" not in note
    embedded = result.blocks[1]
    assert isinstance(embedded, EmbeddedResource) and embedded.resource.uri.endswith("/new%0Aline.txt")


def test_a_prompt_with_only_duplicates_mentions_each_file_once(tmp_path: Path) -> None:
    root = project(tmp_path)
    submission = PromptSubmission("@src/app.py @./src/app.py", (Mention.of("src/app.py"), Mention.of("./src/app.py")))
    result = build_prompt_blocks(submission, PromptCapabilities(), root)
    assert isinstance(result, PromptBlocks) and len(result.blocks) == 2


def test_describe_block_names_what_was_attached_without_its_bytes(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = build_prompt_blocks(
        submission_for(root, ["src/app.py", "shot.png", "docs/"]),
        PromptCapabilities(embedded_context=True, image=True),
        root,
    )
    assert isinstance(result, PromptBlocks)
    labels = [describe_block(block) for block in result.blocks]
    assert labels[0] is None
    assert [a.label() for a in labels[1:] if a is not None] == [
        "app.py · 12 B",
        "shot.png · png · 80 B",
        "docs/ · folder",
    ]
    assert [a.kind for a in labels[1:] if a is not None] == ["embedded", "image", "link"]
    records = [a.record() for a in labels[1:] if a is not None]
    assert records[1] == {
        "kind": "image",
        "name": "shot.png",
        "size": 80,
        "mimeType": "image/png",
        "uri": (root / "shot.png").as_uri(),
    }
    assert "data" not in json.dumps(records) and "print('hi')" not in json.dumps(records)


def test_the_core_imports_neither_textual_nor_rich() -> None:
    code = (
        "import sys, acp_tui.context, acp_tui.context.blocks, acp_tui.context.index, acp_tui.context.matcher\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == ""


# -- hostile mentions: loops, FIFOs, huge sparse files (issue 21) -----------------------------------------


def test_a_mentioned_symlink_loop_stops_the_prompt_saying_so(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    (mention,) = mentions_in_text("see @a", tmp_path)  # it exists as a name: a mention
    result = build_prompt_blocks(
        PromptSubmission("see @a", (mention,)), PromptCapabilities(embedded_context=True), tmp_path
    )
    assert isinstance(result, PromptBlockError)
    assert result.message == "@a is a symbolic link loop; nothing was sent"


def _run_bounded(work: Any, fifo: Path, seconds: float = 10) -> Any:
    """`work()` in a thread; a hang on `fifo` is released (a writer opens it) and fails the test."""
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the blocked reader go
        thread.join(seconds)
        raise AssertionError(f"blocked on the FIFO {fifo.name}")
    return results[0]


def test_a_mentioned_fifo_is_linked_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    submission = submission_for(tmp_path, ["pipe"])
    result = _run_bounded(
        lambda: build_prompt_blocks(submission, PromptCapabilities(embedded_context=True), tmp_path), tmp_path / "pipe"
    )
    assert isinstance(result, PromptBlocks) and isinstance(result.blocks[1], ResourceLink)
    assert result.notes == ("@pipe is not a regular file: sent as a link",)


def test_a_file_swapped_for_a_fifo_after_its_check_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(tmp_path, "notes.txt", data=b"hello\n")
    submission = submission_for(tmp_path, ["notes.txt"])
    real_stat = os.stat

    def stat_then_swap(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        result = real_stat(path, *args, **kwargs)
        if Path(path) == tmp_path / "notes.txt" and not kwargs and not args:
            os.unlink(path)
            os.mkfifo(path)  # the agent's move, between our look and our open
        return result

    monkeypatch.setattr(os, "stat", stat_then_swap)
    result = _run_bounded(
        lambda: build_prompt_blocks(submission, PromptCapabilities(embedded_context=True), tmp_path),
        tmp_path / "notes.txt",
    )
    assert isinstance(result, PromptBlocks) and isinstance(result.blocks[1], ResourceLink)
    assert result.notes == ("@notes.txt is not a regular file: sent as a link",)


def test_a_fifo_named_gitignore_does_not_block_the_index(tmp_path: Path) -> None:
    touch(tmp_path, "src/app.py")
    os.mkfifo(tmp_path / ".gitignore")
    corpus = _run_bounded(lambda: index_of(tmp_path, time_budget=5), tmp_path / ".gitignore")
    assert corpus.status == "complete" and "src/app.py" in corpus.paths


@pytest.mark.parametrize("head", [b"", PNG], ids=["text", "png"])
def test_a_2gb_sparse_file_is_linked_never_read_whole(tmp_path: Path, head: bytes) -> None:
    huge = tmp_path / "huge.dat"
    with open(huge, "wb") as handle:
        handle.write(head)
        handle.truncate(2 * 1024**3)  # sparse: no disk used
    capabilities = PromptCapabilities(embedded_context=True, image=True, audio=True)
    tracemalloc.start()
    try:
        result = build_prompt_blocks(submission_for(tmp_path, ["huge.dat"]), capabilities, tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024  # the head, not the file
    assert isinstance(result, PromptBlocks) and isinstance(result.blocks[1], ResourceLink)
    assert result.blocks[1].size == 2 * 1024**3
    assert result.notes and "2048.0 MB" in result.notes[0]
