"""The crash-proof session transcript: JSON Lines appended as the conversation grows, read back as Markdown.

- `records`: one msgspec Struct per record kind, tagged by `"ev"` (the file format, and what changed in
  format 2);
- `writer`: `TranscriptWriter`, fed the reducer's changes by whoever owns the session (the controller);
- `reader`: `load_records`, typed records back, tolerant of a torn last line and of unknown records;
- `markdown`: `render_markdown`, the conversation as a chat log.

Nothing here imports the UI: the print mode and the tests use it as the app does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.transcript.records import FORMAT_VERSION, Record
from acp_tui.transcript.writer import TranscriptWriter, transcript_path

if TYPE_CHECKING:
    from acp_tui.transcript.markdown import render_markdown
    from acp_tui.transcript.reader import load_records


def __getattr__(name: str) -> Any:
    """The reading half (`load_records`, `render_markdown`) is imported when first asked for: a session writes
    its transcript from the start, but reads one only to export or resume (~3 ms of start-up otherwise)."""
    if name == "render_markdown":
        from acp_tui.transcript.markdown import render_markdown

        return render_markdown
    if name == "load_records":
        from acp_tui.transcript.reader import load_records

        return load_records
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TranscriptWriter", "transcript_path", "load_records", "render_markdown", "Record", "FORMAT_VERSION"]
