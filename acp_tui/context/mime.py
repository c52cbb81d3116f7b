"""MIME types for attached files: sniffed from the first bytes for media, by name for text.

Deterministic on every machine: the system's `mime.types` is not read (it maps `.ts` to MPEG
transport streams, for one), only Python's built-in table and a few source-code types it lacks.
"""

from __future__ import annotations

import functools
import mimetypes

__all__ = ["IMAGE_TYPES", "AUDIO_TYPES", "sniff_media", "text_mime", "binary_mime", "looks_binary", "is_image_name"]

#: Image formats sent as `image` blocks (those the common model APIs accept).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Audio formats sent as `audio` blocks.
AUDIO_TYPES = frozenset({"audio/wav", "audio/mpeg", "audio/ogg", "audio/flac"})


@functools.cache
def _builtin() -> mimetypes.MimeTypes:
    """Python's own table only, never the system's files; built when a file is first attached (building it
    took ~2 ms of start-up)."""
    return mimetypes.MimeTypes(filenames=())


_SOURCE_TYPES = {
    ".py": "text/x-python",
    ".pyi": "text/x-python",
    ".ts": "text/x-typescript",
    ".tsx": "text/x-typescript",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".cjs": "text/javascript",
    ".jsx": "text/javascript",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".rs": "text/x-rust",
    ".go": "text/x-go",
    ".java": "text/x-java",
    ".kt": "text/x-kotlin",
    ".c": "text/x-c",
    ".h": "text/x-c",
    ".cc": "text/x-c++",
    ".cpp": "text/x-c++",
    ".hpp": "text/x-c++",
    ".rb": "text/x-ruby",
    ".sh": "text/x-shellscript",
    ".toml": "application/toml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".json": "application/json",
    ".xml": "application/xml",
    ".html": "text/html",
    ".css": "text/css",
    ".csv": "text/csv",
    ".sql": "application/sql",
    ".svg": "image/svg+xml",
    ".tcss": "text/css",
}

_IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


def is_image_name(name: str) -> bool:
    """Does the file name end like an image the agent could be sent (`.png`, `.jpg`, ...)?"""
    dot = name.rfind(".")
    return dot >= 0 and name[dot:].lower() in _IMAGE_SUFFIXES


def sniff_media(head: bytes) -> str | None:
    """The MIME type of an image or audio file from its first bytes (at least 12), else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return "audio/wav"
    if head.startswith(b"ID3") or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06):
        return "audio/mpeg"
    if head.startswith(b"OggS"):
        return "audio/ogg"
    if head.startswith(b"fLaC"):
        return "audio/flac"
    return None


def looks_binary(data: bytes) -> bool:
    """Binary when it has a NUL byte or is not UTF-8 (what git and most editors decide on, too)."""
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def text_mime(name: str) -> str:
    """The MIME type of a text file named `name` (`text/plain` when nothing better is known)."""
    suffix = _suffix(name)
    if suffix in _SOURCE_TYPES:
        return _SOURCE_TYPES[suffix]
    guessed, _ = _builtin().guess_type("x" + suffix, strict=False) if suffix else (None, None)
    if guessed and (guessed.startswith("text/") or guessed.endswith(("+xml", "+json", "/json", "/xml"))):
        return guessed
    return "text/plain"


def binary_mime(name: str, head: bytes) -> str:
    """The MIME type of a binary file: sniffed, else by name, else `application/octet-stream`."""
    sniffed = sniff_media(head)
    if sniffed is not None:
        return sniffed
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    suffix = _suffix(name)
    guessed, _ = _builtin().guess_type("x" + suffix, strict=False) if suffix else (None, None)
    return guessed or "application/octet-stream"
