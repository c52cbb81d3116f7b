"""A prompt's blocks, with its mentions that lead outside the session folder governed like outside reads.

`@pw` where `pw` is a symbolic link to `/etc/passwd` names a file inside the folder and reads one outside
it. The user's `outside_reads` setting, which governs what acp-tui reads outside the folder for the
agent, governs it too (`context.blocks.outside_mentions`): `allow` sends it, marked with a warning and its
real path; `ask` puts it to the user with the outside-read dialog (`OutsideRead.mention`); `refuse` sends
nothing. Shared by a prompt sent the ordinary way (the controller) and one steered into the running turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import assert_never

from acp_tui.agent.session import AgentSession
from acp_tui.context import PromptBlockError, PromptCapabilities, PromptSubmission, build_prompt_blocks
from acp_tui.context.blocks import outside_mentions, shown_path
from acp_tui.controller.controller_events import Severity
from acp_tui.launch import Launch
from acp_tui.protocol import codec
from acp_tui.protocol.v2 import ContentBlock
from acp_tui.services.files import FileAsker, OutsideRead

#: How the guard writes a line in the conversation (the controller's `note`).
Note = Callable[[str, Severity], None]


async def prompt_blocks(
    session: AgentSession, submission: PromptSubmission, launch: Launch, asker: FileAsker, note: Note
) -> list[ContentBlock] | None:
    """The prompt's blocks (files read now, as the agent's capabilities allow); None when nothing may be sent
    (said in the conversation)."""
    if not submission.mentions:
        return [codec.text_block(submission.text)]
    roots = tuple(session.additional_directories)
    allowed = await _allowed_outside(submission, session.cwd, roots, launch, asker, note)
    if allowed is None:
        return None
    built = await asyncio.to_thread(
        build_prompt_blocks,
        submission,
        PromptCapabilities.from_init(session.init, session.version),
        session.cwd,
        roots,
        allowed,
    )
    if isinstance(built, PromptBlockError):
        note(f"not sent: {built.message}", "error")  # nothing the agent may not take goes out
        return None
    for line in built.notes:
        note(line, "warning")
    return built.blocks


async def _allowed_outside(
    submission: PromptSubmission, cwd: str, roots: tuple[str, ...], launch: Launch, asker: FileAsker, note: Note
) -> frozenset[str] | None:
    """The real paths outside the folder the prompt may read, by the `outside_reads` rule; None: not sent."""
    leading_out = await asyncio.to_thread(outside_mentions, submission, cwd, roots)
    allowed: set[str] = set()
    for mention, real in leading_out:
        where = f"@{shown_path(mention.path)} leads outside the session folder, to {shown_path(real, 200)}"
        match launch.outside_reads:
            case "allow":
                allowed.add(real)
            case "refuse":
                note(f'not sent: {where}; reading outside it is turned off (outside_reads = "refuse")', "error")
                return None
            case "ask":
                read = OutsideRead(path=Path(real), cwd=Path(cwd).resolve(), requested=mention.path, mention=True)
                if not await asker.confirm_outside_read(read):
                    note(f"not sent: {where}, and you did not allow sending it", "warning")
                    return None
                allowed.add(real)
            case unreachable:
                assert_never(unreachable)
    return frozenset(allowed)


__all__ = ["prompt_blocks"]
