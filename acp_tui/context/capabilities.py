"""What content an agent accepts in a prompt, read from its `initialize` answer in either version.

Baseline (both versions, schema `PromptCapabilities`): every agent takes `text` and `resource_link`
blocks. `resource` (embedded context), `image` and `audio` blocks need the agent's opt-in:

* v2: `capabilities.session.prompt.{embeddedContext, image, audio}`, each an object; present and not
  null means supported (`{}` is the usual value).
* v1: `agentCapabilities.promptCapabilities.{embeddedContext, image, audio}`, each a boolean
  (default false).

Anything that is not clearly an opt-in (a string, a number, a malformed parent) counts as absent:
sending a block the agent did not advertise is the one mistake this must never make.
"""

from __future__ import annotations

from typing import Any

import msgspec

from acp_tui.protocol import codec
from acp_tui.protocol.methods import InitializeResponse
from acp_tui.protocol.v2 import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent

__all__ = ["PromptCapabilities"]


def _v2_flag(value: Any) -> bool:
    return isinstance(value, dict) or value is True


def _v1_flag(value: Any) -> bool:
    return value is True


class PromptCapabilities(msgspec.Struct, frozen=True):
    """The prompt content types beyond the baseline (text, resource links) that the agent accepts."""

    embedded_context: bool = False
    image: bool = False
    audio: bool = False

    @staticmethod
    def from_init(init: InitializeResponse | None, version: int | None = None) -> PromptCapabilities:
        """Read the negotiated capabilities; `version` is the negotiated one (inferred from the answer's
        shape when None). No answer (not initialised yet) means baseline only."""
        if init is None:
            return PromptCapabilities()
        if version is None:
            version = 1 if codec.is_v1_shaped(init) or init.protocol_version < 2 else 2
        if version >= 2:
            node = _path(init.capabilities, "session", "prompt")
            flag = _v2_flag
        else:
            node = _path(init.agent_capabilities, "promptCapabilities")
            flag = _v1_flag
        if not isinstance(node, dict):
            return PromptCapabilities()
        return PromptCapabilities(
            embedded_context=flag(node.get("embeddedContext")),
            image=flag(node.get("image")),
            audio=flag(node.get("audio")),
        )

    def allows(self, block: object) -> bool:
        """May `block` be sent in a prompt to this agent?"""
        if isinstance(block, (TextContent, ResourceLink)):
            return True
        if isinstance(block, EmbeddedResource):
            return self.embedded_context
        if isinstance(block, ImageContent):
            return self.image
        if isinstance(block, AudioContent):
            return self.audio
        return False  # unknown kinds are never sent

    def describe(self) -> str:
        """The accepted kinds, for messages and logs: "text, links, embedded files, images"."""
        kinds = ["text", "links"]
        if self.embedded_context:
            kinds.append("embedded files")
        if self.image:
            kinds.append("images")
        if self.audio:
            kinds.append("audio")
        return ", ".join(kinds)


def _path(node: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node
