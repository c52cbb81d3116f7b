"""Non-text content blocks as small chips, plus the bounding helpers every timeline widget shares.

An image or audio block shows as "[image png 34 KB]", a resource link as "name (uri)", an embedded
resource as a collapsible chip that opens to its (bounded) text, an unknown block type as
"[unsupported content: x]". Agent strings go through `sanitize` and into `rich.text.Text` objects:
never markup, never links, so nothing in them can be clicked or styled by the agent.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Final

from rich.console import Console
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.context.blocks import Attachment, describe_block
from acp_tui.protocol.v2 import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    UnknownContent,
)
from acp_tui.sanitize import multiline, plain
from acp_tui.sizes import human_size

__all__ = [
    "MAX_JSON_LINES",
    "human_size",
    "base64_size",
    "head_lines",
    "pretty_json",
    "more_lines_text",
    "block_chip",
    "to_content",
    "TextStatic",
    "ContentChip",
    "EmbeddedResourceView",
    "block_widget",
    "attachment_text",
    "AttachmentChip",
    "attachment_widget",
]

#: Lines of raw JSON shown before "… N more lines".
MAX_JSON_LINES: Final = 300
#: Lines of an embedded text resource shown before "… N more lines".
MAX_RESOURCE_LINES: Final = 200


def base64_size(data: str) -> int:
    """The decoded size of base64 text, without decoding it."""
    stripped = data.rstrip("=")
    return len(stripped) * 3 // 4


def head_lines(text: str, max_lines: int) -> tuple[str, int]:
    """The first `max_lines` lines of `text` and how many lines were left out (O(kept length))."""
    end = -1
    for _ in range(max_lines):
        end = text.find("\n", end + 1)
        if end < 0:
            return text, 0
    rest = text[end + 1 :]
    if not rest:
        return text[:end], 0
    return text[:end], rest.count("\n") + (0 if rest.endswith("\n") else 1)


def pretty_json(value: Any) -> str:
    """Indented JSON for an inspector (sanitized; values JSON cannot express are shown by `str`)."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return multiline(text)


def more_lines_text(count: int, hint: str = "") -> Text:
    """The dim "… N more lines" affordance under truncated output."""
    noun = "line" if count == 1 else "lines"
    return Text(f"… {count} more {noun}{hint}", style="dim italic")


def _subtype(mime_type: str) -> str:
    """ "image/png" -> "png" (sanitized; the whole value when it has no slash)."""
    return plain(mime_type.rpartition("/")[2] or mime_type)


_CONSOLE = Console()


def to_content(text: Text) -> Content:
    """A Textual `Content` from a Rich `Text` without needing a running app (styles only, no markup)."""
    return Content.from_rich_text(text, console=_CONSOLE)


class TextStatic(Static):
    """A `Static` that only ever shows `Text` (never parses markup) and can be updated before mounting."""

    def __init__(self, text: Text | None = None, *, classes: str | None = None) -> None:
        super().__init__(to_content(text or Text()), markup=False, classes=classes)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        """Show `content`: a `Text` (converted without markup) or a `Content`."""
        if isinstance(content, str):
            content = Text(content)
        if isinstance(content, Text):
            content = to_content(content)
        super().update(content, layout=layout)


def block_chip(block: Any) -> Text:
    """The one-line chip for a non-text content block (text blocks are rendered by their widgets)."""
    if isinstance(block, ImageContent):
        return Text(f"[image {_subtype(block.mime_type)} {human_size(base64_size(block.data))}]")
    if isinstance(block, AudioContent):
        return Text(f"[audio {_subtype(block.mime_type)} {human_size(base64_size(block.data))}]")
    if isinstance(block, ResourceLink):
        chip = Text("↗ ")  # a single-cell glyph (an emoji is two cells wide in most terminals)
        chip.append(plain(block.name))
        chip.append(f" ({plain(block.uri)})", style="dim")
        if isinstance(block.size, int):
            chip.append(f" {human_size(block.size)}", style="dim")
        return chip
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        uri = plain(getattr(resource, "uri", ""))
        if isinstance(resource, BlobResourceContents):
            mime = resource.mime_type if isinstance(resource.mime_type, str) else "binary"
            return Text(f"[resource {uri} {_subtype(mime)} {human_size(base64_size(resource.blob))}]")
        return Text(f"[resource {uri}]")
    if isinstance(block, TextContent):
        return Text(multiline(block.text))
    if isinstance(block, UnknownContent):
        return Text(f"[unsupported content: {plain(block.type)}]")
    return Text(f"[unsupported content: {plain(type(block).__name__)}]")


class ContentChip(TextStatic):
    """A non-text content block shown as a one-line chip."""

    DEFAULT_CSS = """
    ContentChip {
        width: auto;
        max-width: 100%;
        height: auto;
        color: $text-muted;
        background: $boost;
        padding: 0 1;
    }
    """

    def __init__(self, block: Any) -> None:
        super().__init__(block_chip(block))
        self.block = block


class EmbeddedResourceView(Vertical, can_focus=True):
    """An embedded resource: a chip that opens (click or Enter) to the resource's bounded text."""

    DEFAULT_CSS = """
    EmbeddedResourceView {
        height: auto;
        width: 1fr;
    }
    EmbeddedResourceView > .resource--chip {
        width: auto;
        color: $text-muted;
        background: $boost;
        padding: 0 1;
    }
    EmbeddedResourceView:focus > .resource--chip {
        background: $primary 30%;
    }
    EmbeddedResourceView > .resource--body {
        display: none;
        padding: 0 1;
        border-left: outer $panel;
    }
    EmbeddedResourceView.-expanded > .resource--body {
        display: block;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_open", "Expand", show=False)]

    def __init__(self, block: EmbeddedResource) -> None:
        super().__init__()
        self.block = block
        self._chip = TextStatic(self._chip_text(False), classes="resource--chip")
        self._body = TextStatic(self._body_text(), classes="resource--body")

    def _expandable(self) -> bool:
        return isinstance(self.block.resource, TextResourceContents)

    def _chip_text(self, expanded: bool) -> Text:
        chip = block_chip(self.block)
        if self._expandable():
            chip = Text("▾ " if expanded else "▸ ").append_text(chip)
        return chip

    def _body_text(self) -> Text:
        resource = self.block.resource
        if not isinstance(resource, TextResourceContents):
            return Text("")
        head, more = head_lines(multiline(resource.text), MAX_RESOURCE_LINES)
        body = Text(head)
        if more:
            body.append("\n").append_text(more_lines_text(more))
        return body

    def compose(self) -> ComposeResult:
        yield self._chip
        yield self._body

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def action_toggle_open(self) -> None:
        """Open or close the resource text (only text resources have any)."""
        if not self._expandable():
            return
        self.toggle_class("-expanded")
        self._chip.update(self._chip_text(self.expanded))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_open()


def block_widget(block: Any) -> Widget:
    """The widget for one non-text content block (a text block gets a plain chip of its text)."""
    if isinstance(block, EmbeddedResource):
        return EmbeddedResourceView(block)
    return ContentChip(block)


# --- prompt attachments (the user's message) ---------------------------------------------------------

#: One single-cell glyph per attachment kind (text symbols, never emoji, as in `icons`).
ATTACHMENT_ICONS: Final[dict[str, str]] = {"embedded": "▤", "link": "↗", "image": "▣", "audio": "♪", "folder": "▸"}


def attachment_text(attachment: Attachment) -> Text:
    """An attachment chip: glyph, name, kind and size; never the attached bytes (names sanitised)."""
    kind = "folder" if attachment.mime_type == "inode/directory" else attachment.kind
    return Text(f"{ATTACHMENT_ICONS[kind]} {attachment.label()}")


class AttachmentChip(TextStatic):
    """A file, link, image or audio clip attached to a prompt, as one chip (see `attachment_text`)."""

    DEFAULT_CSS = """
    AttachmentChip {
        width: auto;
        max-width: 100%;
        height: auto;
        color: $text-accent;
        background: $accent-muted;
        padding: 0 1;
    }
    """

    def __init__(self, block: Any, attachment: Attachment) -> None:
        super().__init__(attachment_text(attachment))
        self.block = block
        self.attachment = attachment


def attachment_widget(block: Any) -> Widget:
    """How the user's message shows a non-text block: an attachment chip, or for a block kind this
    client does not know, the generic chip."""
    attachment = describe_block(block)
    return AttachmentChip(block, attachment) if attachment is not None else block_widget(block)
