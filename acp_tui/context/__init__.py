"""Prompt context: the `@` file index and matcher, and the content blocks a prompt's mentions become.

Pure core (no Textual, no Rich): the UI's picker and prompt use it, and so could any other front end.
"""

from acp_tui.context.blocks import (
    Attachment,
    PromptBlockError,
    PromptBlocks,
    build_prompt_blocks,
    describe_block,
    disallowed_blocks,
)
from acp_tui.context.capabilities import PromptCapabilities
from acp_tui.context.index import Corpus, FileIndex
from acp_tui.context.matcher import Match, Matcher
from acp_tui.context.mentions import Mention, PromptSubmission, mention_token, mentions_in_text

__all__ = [
    "Attachment",
    "Corpus",
    "FileIndex",
    "Match",
    "Matcher",
    "Mention",
    "PromptBlockError",
    "PromptBlocks",
    "PromptCapabilities",
    "PromptSubmission",
    "build_prompt_blocks",
    "describe_block",
    "disallowed_blocks",
    "mention_token",
    "mentions_in_text",
]
