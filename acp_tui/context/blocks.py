"""Turn a prompt submission into the content blocks the agent is allowed to receive.

ACP prompts are lists of content blocks (schema `ContentBlock`, "Content" in the spec). Every agent
takes `text` and `resource_link`; `resource`, `image` and `audio` only when its prompt capabilities
say so (`PromptCapabilities`). Each mention becomes one block, chosen in this order:

* a directory, or anything that is not a regular file: a `resource_link`;
* an image (sniffed PNG/JPEG/GIF/WebP): an `image` block (base64, MIME type, `file://` URI) when the
  agent takes images and it is at most `IMAGE_LIMIT`; otherwise a link, with a note saying why;
* audio likewise with `audio` and `AUDIO_LIMIT`;
* a text file: an embedded `resource` (its text and MIME type) when the agent takes embedded context
  and the file is at most `EMBED_LIMIT` (and the prompt's embedded total stays under
  `TOTAL_EMBED_LIMIT`); a larger or binary file is linked, with a note;
* without embedded context: a `resource_link` (`file://` URI, name, size, MIME type).

A mention whose file vanished (or cannot be read) stops the whole prompt with a `PromptBlockError`
before anything is sent. So does a mention that leads outside the session folder through a symbolic link
(`@pw` → `/etc/passwd`, `outside_mentions`) unless its real path was allowed (`allowed_outside`: the
controller applies the `outside_reads` rule to it, as to a read the agent asks for); an allowed one is
read at its real path, sent under that path, and noted with a warning. A path typed as it is (`@/etc/x`)
is the user's own choice and is not asked about. The same blocks are valid in v1 and v2 (their `ContentBlock` shapes agree on
every field used here); only where the capabilities live differs, which `PromptCapabilities` hides.

Strings put on the wire are valid UTF-8 (undecodable bytes of a file name become U+FFFD in `name`;
the URI percent-encodes the exact bytes). Strings put in notes and errors are for the screen: they
are sanitised and shortened here.
"""

from __future__ import annotations

import base64
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

import msgspec
from msgspec import UNSET

from acp_tui.context.capabilities import PromptCapabilities
from acp_tui.context.mentions import Mention, PromptSubmission, resolve
from acp_tui.context.mime import AUDIO_TYPES, IMAGE_TYPES, binary_mime, looks_binary, sniff_media, text_mime
from acp_tui.protocol.v2 import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from acp_tui.sanitize import plain
from acp_tui.sizes import human_size

__all__ = [
    "EMBED_LIMIT",
    "TOTAL_EMBED_LIMIT",
    "IMAGE_LIMIT",
    "AUDIO_LIMIT",
    "PromptBlocks",
    "PromptBlockError",
    "Attachment",
    "build_prompt_blocks",
    "describe_block",
    "disallowed_blocks",
    "human_size",
    "shown_path",
    "outside_mentions",
    "real_outside",
]

#: Larger text files are linked, not embedded.
EMBED_LIMIT = 256 * 1024
#: Once the embedded files of one prompt reach this, further ones are linked.
TOTAL_EMBED_LIMIT = 2 * 1024 * 1024
#: Larger images are linked, not attached (the common model APIs refuse bigger ones).
IMAGE_LIMIT = 5 * 1024 * 1024
#: Larger audio files are linked, not attached.
AUDIO_LIMIT = 10 * 1024 * 1024
#: Bytes read to tell a file's kind.
_HEAD = 4096
#: Characters of a path shown in a note before it is shortened in the middle.
_SHOWN = 80


class PromptBlocks(msgspec.Struct, frozen=True):
    """The blocks to send, in order (the text, then one block per mention), and notes for the user
    (a file linked instead of embedded, and why)."""

    blocks: list[ContentBlock]
    notes: tuple[str, ...] = ()


class PromptBlockError(msgspec.Struct, frozen=True):
    """Nothing may be sent: `message` says why, fit for the user (e.g. a mentioned file vanished)."""

    message: str
    mention: Mention | None = None


def shown_path(path: str, width: int = _SHOWN) -> str:
    """A path fit for one line on screen: sanitised, and shortened in the middle when very long."""
    text = plain(path.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if _surrogates(path) else path)
    if len(text) <= width:
        return text
    keep = (width - 1) // 2
    return text[:keep] + "…" + text[-(width - 1 - keep) :]


def _surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _wire(text: str) -> str:
    """`text` as valid UTF-8 for JSON: undecodable file-name bytes (surrogate escapes) become U+FFFD."""
    if not _surrogates(text):
        return text
    return (
        text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        if _escapable(text)
        else (text.encode("utf-8", "replace").decode("utf-8"))
    )


def _escapable(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def _link(path: Path, mention: Mention, size: int | None, mime_type: str | None) -> ResourceLink:
    return ResourceLink(
        uri=path.as_uri(),
        name=_wire(mention.path),
        mime_type=mime_type if mime_type else UNSET,
        size=size if size is not None else UNSET,
    )


class _Budget:
    """What the prompt has embedded so far."""

    def __init__(self) -> None:
        self.embedded = 0


def _block_for(
    mention: Mention, path: Path, capabilities: PromptCapabilities, budget: _Budget
) -> tuple[ContentBlock, str | None] | PromptBlockError:
    """One mention's block and an optional note, or the error that stops the prompt."""
    shown = shown_path(mention.path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return PromptBlockError(f"@{shown} is a broken symbolic link; nothing was sent", mention)
        return PromptBlockError(f"@{shown} no longer exists; nothing was sent", mention)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return PromptBlockError(f"@{shown} is a symbolic link loop; nothing was sent", mention)
        return PromptBlockError(f"cannot read @{shown} ({exc.strerror or exc}); nothing was sent", mention)
    if stat.S_ISDIR(info.st_mode):
        return _link(path, mention, None, "inode/directory"), None
    if not stat.S_ISREG(info.st_mode):
        return _link(path, mention, None, None), f"@{shown} is not a regular file: sent as a link"
    try:
        # Without blocking: a FIFO put in the file's place since the stat above must not hang the prompt
        # (O_NONBLOCK opens it at once); what the descriptor is decides.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return PromptBlockError(f"@{shown} no longer exists; nothing was sent", mention)
    except OSError as exc:
        return PromptBlockError(f"cannot read @{shown} ({exc.strerror or exc}); nothing was sent", mention)
    try:
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                return _link(path, mention, None, None), f"@{shown} is not a regular file: sent as a link"
            size = info.st_size
            head = handle.read(_HEAD)
            media = sniff_media(head)
            wanted = _wanted_bytes(media, size, capabilities, budget)
            data = head + handle.read(wanted - len(head)) if wanted > len(head) else head[:wanted]
    except FileNotFoundError:
        return PromptBlockError(f"@{shown} no longer exists; nothing was sent", mention)
    except OSError as exc:
        return PromptBlockError(f"cannot read @{shown} ({exc.strerror or exc}); nothing was sent", mention)
    name = path.name
    if media in IMAGE_TYPES or media in AUDIO_TYPES:
        return _media_block(mention, path, media, size, data, capabilities, shown)
    if media is not None or looks_binary(head):
        return _link(path, mention, size, binary_mime(name, head)), (
            f"@{shown} is binary ({human_size(size)}): sent as a link" if capabilities.embedded_context else None
        )
    mime_type = text_mime(name)
    if not capabilities.embedded_context:
        return _link(path, mention, size, mime_type), None
    if size > EMBED_LIMIT:
        return _link(path, mention, size, mime_type), (
            f"@{shown} is {human_size(size)}, over {human_size(EMBED_LIMIT)}: sent as a link, not embedded"
        )
    if budget.embedded + size > TOTAL_EMBED_LIMIT:
        return _link(path, mention, size, mime_type), (
            f"@{shown}: the prompt already embeds {human_size(budget.embedded)}; sent as a link, not embedded"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _link(path, mention, size, binary_mime(name, head)), f"@{shown} is not UTF-8 text: sent as a link"
    budget.embedded += len(data)
    resource = TextResourceContents(uri=path.as_uri(), text=text, mime_type=mime_type)
    return EmbeddedResource(resource=resource), None


def _wanted_bytes(media: str | None, size: int, capabilities: PromptCapabilities, budget: _Budget) -> int:
    """How much of the file to read: all of an attachable image or audio file or of an embeddable
    text file, else only the head (the file is linked)."""
    if media in IMAGE_TYPES:
        return size if capabilities.image and size <= IMAGE_LIMIT else 0
    if media in AUDIO_TYPES:
        return size if capabilities.audio and size <= AUDIO_LIMIT else 0
    if capabilities.embedded_context and size <= EMBED_LIMIT and budget.embedded + size <= TOTAL_EMBED_LIMIT:
        return size
    return 0


def _media_block(
    mention: Mention, path: Path, media: str, size: int, data: bytes, capabilities: PromptCapabilities, shown: str
) -> tuple[ContentBlock, str | None]:
    image = media in IMAGE_TYPES
    allowed = capabilities.image if image else capabilities.audio
    limit = IMAGE_LIMIT if image else AUDIO_LIMIT
    what = "images" if image else "audio"
    if not allowed:
        return _link(path, mention, size, media), f"the agent does not accept {what}: @{shown} was sent as a link"
    if size > limit or len(data) != size:
        return _link(path, mention, size, media), (
            f"@{shown} is {human_size(size)}, over {human_size(limit)}: sent as a link"
        )
    encoded = base64.b64encode(data).decode("ascii")
    if image:
        return ImageContent(data=encoded, mime_type=media, uri=path.as_uri()), None
    return AudioContent(data=encoded, mime_type=media), None


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def real_outside(path: Path, cwd: str | os.PathLike[str], roots: Sequence[str | os.PathLike[str]] = ()) -> str | None:
    """The real path `path` leads to when a symbolic link takes it outside the session folder (and its extra
    folders), else None (inside, or outside as written: the user typed that path)."""
    real = os.path.realpath(path)
    if real == os.fspath(path):
        return None
    if any(_within(real, os.path.realpath(folder)) for folder in (cwd, *roots)):
        return None
    return real


def outside_mentions(
    submission: PromptSubmission, cwd: str | os.PathLike[str], roots: Sequence[str | os.PathLike[str]] = ()
) -> list[tuple[Mention, str]]:
    """The mentions that lead outside the session folder through a symbolic link, with the real path of each."""
    found: list[tuple[Mention, str]] = []
    for mention in submission.mentions:
        real = real_outside(resolve(mention.path, cwd), cwd, roots)
        if real is not None:
            found.append((mention, real))
    return found


def build_prompt_blocks(
    submission: PromptSubmission,
    capabilities: PromptCapabilities,
    cwd: str | os.PathLike[str],
    roots: Sequence[str | os.PathLike[str]] = (),
    allowed_outside: frozenset[str] = frozenset(),
) -> PromptBlocks | PromptBlockError:
    """The blocks for `submission`: its text, then one block per mention (each path once), each of a
    kind `capabilities` allows; or why nothing may be sent.

    Reads the mentioned files (bounded by the limits above): call it when the prompt is about to be
    sent, so the agent gets the files as they are then. A mention that leads outside the folder through
    a link is read only when its real path is in `allowed_outside` (checked again here: a link changed
    since it was allowed stops the prompt).
    """
    blocks: list[ContentBlock] = []
    notes: list[str] = []
    if submission.text:
        blocks.append(TextContent(text=_wire(submission.text)))
    budget = _Budget()
    seen: set[str] = set()
    for mention in submission.mentions:
        path = resolve(mention.path, cwd)
        key = os.fspath(path)
        if key in seen:
            continue
        seen.add(key)
        real = real_outside(path, cwd, roots)
        if real is not None:
            shown, real_shown = shown_path(mention.path), shown_path(real, 200)
            if real not in allowed_outside:
                return PromptBlockError(
                    f"@{shown} leads outside the session folder, to {real_shown}; nothing was sent", mention
                )
            notes.append(f"⚠ @{shown} leads outside the session folder: {real_shown} was sent")
            path = Path(real)  # read where it leads, and named so: the agent and the chip see the real path
        result = _block_for(mention, path, capabilities, budget)
        if isinstance(result, PromptBlockError):
            return result
        block, note = result
        blocks.append(block)
        if note:
            notes.append(note)
    if not blocks:
        return PromptBlockError("the prompt is empty; nothing was sent")
    return PromptBlocks(blocks, tuple(notes))


def disallowed_blocks(blocks: Sequence[object], capabilities: PromptCapabilities) -> list[str]:
    """The kinds of the blocks in `blocks` that the agent did not advertise (empty when all may be sent)."""
    refused: list[str] = []
    for block in blocks:
        if not capabilities.allows(block):
            kind = getattr(block, "type", None) or type(block).__name__
            refused.append(str(kind) if not isinstance(block, EmbeddedResource) else "resource")
    return refused


# --- describing attachments (for the timeline and the transcript) ----------------------------------


AttachmentKind = Literal["embedded", "link", "image", "audio"]


class Attachment(msgspec.Struct, frozen=True):
    """What a non-text prompt block carries, without its bytes: for chips and transcripts.

    `name` is raw agent or file-system data: show it through `label()` (sanitised), never as is.
    """

    kind: AttachmentKind
    name: str
    size: int | None
    mime_type: str | None
    uri: str | None

    def record(self) -> dict[str, object]:
        """JSON-ready, without the bytes: what a transcript keeps of an attachment."""
        record: dict[str, object] = {"kind": self.kind, "name": _wire(self.name)}
        if self.size is not None:
            record["size"] = self.size
        if self.mime_type is not None:
            record["mimeType"] = _wire(self.mime_type)
        if self.uri is not None:
            record["uri"] = _wire(self.uri)
        return record

    def label(self) -> str:
        """One sanitised line: "app.py · 2 KB", "shot.png · png · 34 KB", "src/ · folder"."""
        parts = [shown_path(self.name, 60)]
        if self.mime_type == "inode/directory":
            parts.append("folder")
        elif self.kind in ("image", "audio") and self.mime_type:
            parts.append(plain(self.mime_type.rpartition("/")[2]))
        if self.size is not None:
            parts.append(human_size(self.size))
        return " · ".join(parts)


def _uri_name(uri: str) -> str:
    """The last path component of a URI (the whole URI when it has none)."""
    try:
        path = unquote(urlsplit(uri).path, errors="replace")
    except ValueError:
        return uri
    name = path.rstrip("/").rpartition("/")[2]
    return name or uri


def _b64_size(data: str) -> int:
    return len(data.rstrip("=")) * 3 // 4


def describe_block(block: object) -> Attachment | None:
    """The attachment a non-text block stands for (None for text and unknown blocks)."""
    if isinstance(block, ResourceLink):
        link_size = block.size if isinstance(block.size, int) else None
        link_mime = block.mime_type if isinstance(block.mime_type, str) else None
        return Attachment("link", block.name or _uri_name(block.uri), link_size, link_mime, block.uri)
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        uri = resource.uri if isinstance(resource, (TextResourceContents, BlobResourceContents)) else ""
        mime = resource.mime_type if isinstance(getattr(resource, "mime_type", None), str) else None
        if isinstance(resource, TextResourceContents):
            size: int | None = len(resource.text.encode("utf-8", "replace"))
        elif isinstance(resource, BlobResourceContents):
            size = _b64_size(resource.blob)
        else:
            size = None
        return Attachment("embedded", _uri_name(uri), size, mime, uri or None)
    if isinstance(block, ImageContent):
        image_uri = block.uri if isinstance(block.uri, str) else None
        name = _uri_name(image_uri) if image_uri else "image"
        return Attachment("image", name, _b64_size(block.data), block.mime_type, image_uri)
    if isinstance(block, AudioContent):
        return Attachment("audio", "audio", _b64_size(block.data), block.mime_type, None)
    return None
