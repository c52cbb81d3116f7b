"""The demo agent's scripted behaviours, chosen by words in the prompt.

Each behaviour is a coroutine over a `Turn`; a prompt naming several runs them in the order they
appear, and a prompt naming none gets an echo. Behaviours raise `TurnFailed` (the `error`
script) or `TurnCancelled` (a cancelled permission answer); the server turns those, and task
cancellation, into the right ending.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from acp_tui.demo import content
from acp_tui.demo.dialect import PlanStep, ToolDiff, ToolText
from acp_tui.demo.turn import Turn, TurnFailed

Script = Callable[[Turn], Awaitable[None]]

_WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")
_ALIASES = {
    "compaction": "compact",
    "thinking": "think",
    "thought": "think",
    "tool": "tools",
    "notices": "notice",
    "errors": "error",
    "all": "everything",
}


def prompt_text(blocks: list[dict[str, Any]]) -> str:
    """The text blocks of a prompt, joined."""
    return "\n".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")


def _decoded_size(data: Any) -> str:
    """The decoded size of base64 text, as "12 KB" (without decoding it)."""
    size = len(str(data).rstrip("=")) * 3 // 4
    return f"{size} B" if size < 1024 else f"{round(size / 1024)} KB"


def received(blocks: list[dict[str, Any]]) -> str:
    """What the prompt carried, block by block, as the agent got it (the `context` behaviour, and said
    whenever a prompt has more than text): "I received: text, resource_link file:///…, image image/png 12 KB"."""
    items: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            items.append("text")
        elif kind == "resource_link":
            size = block.get("size")
            items.append(f"resource_link {block.get('uri')}" + (f" ({size} bytes)" if isinstance(size, int) else ""))
        elif kind == "resource":
            resource = block.get("resource")
            if not isinstance(resource, dict):
                resource = {}
            mime = resource.get("mimeType") or "no type"
            if "blob" in resource:
                items.append(f"resource {resource.get('uri')} {mime} {_decoded_size(resource.get('blob'))}")
            else:
                items.append(f"resource {resource.get('uri')} {mime} {len(str(resource.get('text', '')))} characters")
        elif kind in ("image", "audio"):
            items.append(f"{kind} {block.get('mimeType', 'no type')} {_decoded_size(block.get('data', ''))}")
        else:
            items.append(f"{kind!r}")
    return "I received: " + (", ".join(items) if items else "nothing")


def attachments(blocks: list[dict[str, Any]]) -> list[str]:
    """A short description of each non-text block, for the echo."""
    described: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            continue
        if kind == "resource_link":
            described.append(f"a link to {block.get('name') or block.get('uri')}")
        elif kind == "resource":
            resource = block.get("resource")
            uri = resource.get("uri") if isinstance(resource, dict) else None
            described.append(f"the embedded resource {uri or '(no uri)'}")
        elif kind in ("image", "audio"):
            described.append(f"an {kind} ({block.get('mimeType', 'unknown type')})")
        else:
            described.append(f"a block of type {kind!r}")
    return described


def choose(text: str) -> list[str]:
    """The behaviours `text` names, in order of first appearance (case-insensitive)."""
    chosen: list[str] = []
    for word in _WORD.findall(text.lower()):
        name = _ALIASES.get(word, word)
        if name in content.BEHAVIOURS and name not in chosen:
            chosen.append(name)
    return ["everything"] if "everything" in chosen else chosen


async def run(turn: Turn, blocks: list[dict[str, Any]]) -> None:
    """Play the behaviours the prompt names, or the echo."""
    text = prompt_text(blocks)
    names = choose(text)
    if "context" in names or any(block.get("type") != "text" for block in blocks):
        await turn.say(received(blocks), delay=0.01)
        if names == ["context"]:
            return
        names = [name for name in names if name != "context"]
    if not names:
        words = _WORD.findall(text)
        await turn.say(content.echo_text(text, words, []), delay=0.01)
        return
    for name in names:
        await SCRIPTS[name](turn)


# --- building blocks ---------------------------------------------------------------------------------


def _sample_diff(turn: Turn) -> ToolDiff:
    return ToolDiff(
        path=turn.session.path(content.SAMPLE_RELATIVE_PATH),
        old_text=content.SAMPLE_OLD,
        new_text=content.SAMPLE_NEW,
        patch=content.git_patch(content.SAMPLE_RELATIVE_PATH, content.SAMPLE_OLD, content.SAMPLE_NEW),
    )


async def _read(turn: Turn) -> None:
    path = turn.session.path(content.SAMPLE_RELATIVE_PATH)
    tool = await turn.start_tool(
        f"Read {content.SAMPLE_RELATIVE_PATH}",
        "read",
        locations=[(path, content.SAMPLE_FOCUS_LINE)],
        raw_input={"path": path, "line": content.SAMPLE_FOCUS_LINE},
    )
    await turn.set_tool_status(tool, "in_progress")
    await turn.pace.wait(0.4)
    await turn.finish_tool(tool, "completed", items=[ToolText(f"```python\n{content.SAMPLE_OLD}```")])


async def _edit_unasked(turn: Turn) -> None:
    diff = _sample_diff(turn)
    tool = await turn.start_tool(
        f"Edit {content.SAMPLE_RELATIVE_PATH}",
        "edit",
        locations=[(diff.path, None)],
        raw_input={"path": diff.path},
    )
    await turn.set_tool_status(tool, "in_progress")
    await turn.pace.wait(0.4)
    await turn.finish_tool(tool, "completed", items=[diff])


async def _edit_with_permission(turn: Turn) -> bool:
    """Propose the edit, ask (unless an "always" answer stands), apply or skip it; True if applied."""
    diff = _sample_diff(turn)
    title = f"Edit {content.SAMPLE_RELATIVE_PATH}"
    tool = await turn.start_tool(
        title, "edit", locations=[(diff.path, None)], items=[diff], raw_input={"path": diff.path}
    )
    standing = turn.session.standing_permission
    if standing is None:
        choice = await turn.ask_permission(
            tool,
            f"Allow editing {content.SAMPLE_RELATIVE_PATH}?",
            "The demo agent wants to rewrite the greeting with an f-string. Nothing on disk changes.",
        )
        if choice in ("allow_always", "reject_always"):
            turn.session.standing_permission = choice
    else:
        choice = standing
        await turn.say(f"(Using your earlier answer: {standing.replace('_', ' ')}.)\n\n")
    if choice.startswith("allow"):
        await turn.set_tool_status(tool, "in_progress")
        await turn.pace.wait(0.4)
        await turn.finish_tool(tool, "completed", items=[diff])
        return True
    await turn.finish_tool(tool, "failed", items=[ToolText("Refused by the user: the file was not changed.")])
    return False


async def _run_tests(turn: Turn) -> None:
    tool = await turn.start_tool(
        f"Run {content.TEST_COMMAND}",
        "execute",
        status="in_progress",
        raw_input={"command": content.TEST_COMMAND, "cwd": turn.session.cwd},
        cancellable=True,
    )
    if await turn.run_terminal(tool, content.TEST_COMMAND, content.TERMINAL_OUTPUT, 0):
        await turn.finish_tool(tool, "completed", raw_output={"exitCode": 0})
    else:
        await turn.finish_tool(tool, "cancelled", raw_output={"signal": "SIGINT"})


async def _failing_fetch(turn: Turn) -> None:
    tool = await turn.start_tool(
        f"Fetch {content.FAILED_FETCH_URL}", "fetch", raw_input={"url": content.FAILED_FETCH_URL}
    )
    await turn.set_tool_status(tool, "in_progress")
    await turn.pace.wait(0.5)
    await turn.finish_tool(tool, "failed", items=[ToolText(content.FAILED_FETCH_ERROR)])


async def _planned_work(turn: Turn, *, ask: bool) -> bool:
    """The plan's three steps, each entry completing as its tool call does."""
    steps = [PlanStep(text, "pending", "high" if i == 1 else "medium") for i, text in enumerate(content.PLAN_STEPS)]
    steps[0] = PlanStep(steps[0].content, "in_progress", steps[0].priority)
    await turn.show_plan(steps)
    await _read(turn)
    await _advance(turn, 0)
    applied = True
    if ask:
        applied = await _edit_with_permission(turn)
    else:
        await _edit_unasked(turn)
    await _advance(turn, 1)
    await _run_tests(turn)
    await _advance(turn, 2)
    return applied


async def _advance(turn: Turn, done: int) -> None:
    """Mark plan entry `done` completed and the next one in progress, in one update."""
    steps = turn.plan_steps
    steps[done] = PlanStep(steps[done].content, "completed", steps[done].priority)
    if done + 1 < len(steps):
        steps[done + 1] = PlanStep(steps[done + 1].content, "in_progress", steps[done + 1].priority)
    await turn.show_plan(steps)


# --- behaviours --------------------------------------------------------------------------------------


async def markdown(turn: Turn) -> None:
    await turn.say(content.MARKDOWN_ANSWER)


async def think(turn: Turn) -> None:
    await turn.think(content.THOUGHT)
    await turn.say(content.THOUGHT_ANSWER)


async def tools(turn: Turn) -> None:
    await turn.say("Let me read the file, improve it, run the tests and check the package index.\n")
    await _read(turn)
    await _edit_unasked(turn)
    await _run_tests(turn)
    await _failing_fetch(turn)
    await turn.say("Three tool calls worked; the fetch failed, as the demo always does (no network).")


async def edit(turn: Turn) -> None:
    await turn.say("I'd like to make the greeting in `src/greet.py` friendlier.\n")
    if await _edit_with_permission(turn):
        await turn.say("Done: `greet()` now returns an f-string greeting.")
    else:
        await turn.say("You refused the edit, so `src/greet.py` is unchanged.")


async def ask(turn: Turn) -> None:
    """A form tied to a tool call: every field kind, then what the user answered."""
    if "form" not in turn.elicitation_modes:
        await turn.say(content.ELICITATION_UNSUPPORTED.format(feature="ask", mode="form"))
        return
    await turn.say("I need a few details before I set up the project.\n")
    tool = await turn.start_tool("Collect project settings", "other", status="in_progress")
    answer = await turn.ask_user(
        {
            "toolCallId": tool,
            "message": content.ASK_MESSAGE,
            "mode": "form",
            "requestedSchema": content.ASK_SCHEMA,
        }
    )
    action = answer.get("action") if answer else None
    if action == "accept":
        given = answer.get("content") if answer else None
        values = given if isinstance(given, dict) else {}
        lines = [f"- **{name}**: `{json.dumps(value, ensure_ascii=False)}`" for name, value in values.items()]
        await turn.finish_tool(tool, "completed", items=[ToolText(f"{len(values)} answers")])
        await turn.say("Thank you. You answered:\n\n" + ("\n".join(lines) or "(nothing)"))
    elif action == "decline":
        await turn.finish_tool(tool, "failed", items=[ToolText("Declined by the user.")])
        await turn.say("You declined, so I will leave the project settings as they are.")
    else:
        await turn.finish_tool(tool, "cancelled")
        await turn.say("The question was dismissed; nothing was changed.")


async def link(turn: Turn) -> None:
    """A URL flow: the user agrees to open the page, later the demo says it completed."""
    if "url" not in turn.elicitation_modes:
        await turn.say(content.ELICITATION_UNSUPPORTED.format(feature="link", mode="url"))
        return
    elicitation_id = turn.session.new_id("login")
    answer = await turn.ask_user(
        {
            "message": content.LINK_MESSAGE,
            "mode": "url",
            "elicitationId": elicitation_id,
            "url": content.LINK_URL,
        }
    )
    action = answer.get("action") if answer else None
    if action == "accept":
        await turn.say("Waiting for the login to finish…\n")
        await turn.pace.wait(2.0)
        await turn.notify("elicitation/complete", {"elicitationId": elicitation_id})
        await turn.say("The (pretend) login is complete. Carrying on.")
    elif action == "decline":
        await turn.say("You declined the login, so I stop here.")
    else:
        await turn.say("The login was dismissed.")


async def plan(turn: Turn) -> None:
    await turn.say("Here is my plan; watch its entries complete as the tool calls run.\n")
    await _planned_work(turn, ask=False)
    await turn.say("All three steps are done.")


async def notice(turn: Turn) -> None:
    v2 = turn.v2
    if v2 is None:
        await turn.say(content.V2_ONLY.format(feature="notice"))
        return
    await turn.send(v2.notice("warning", content.NOTICE_WARNING_TITLE, content.NOTICE_WARNING_TEXT))
    await turn.pace.wait(0.3)
    await turn.send(v2.notice("info", content.NOTICE_INFO_TITLE, content.NOTICE_INFO_TEXT))
    await turn.say("I sent two notices: a warning and an info. They are live-only, never replayed.")


async def compact(turn: Turn) -> None:
    v2 = turn.v2
    if v2 is None:
        await turn.say(content.V2_ONLY.format(feature="compact"))
        return
    await turn.say("The context is getting long; compacting it.\n")
    compaction_id = turn.session.new_id("cmp")
    turn.open_compactions.add(compaction_id)
    await turn.send(v2.compaction(compaction_id, "in_progress"))
    for chunk in content.COMPACTION_SUMMARY:
        await turn.pace.wait(0.4)
        await turn.send(v2.compaction_chunk(compaction_id, chunk))
    turn.open_compactions.discard(compaction_id)
    await turn.send(v2.compaction(compaction_id, "completed"))
    turn.session.used_tokens = 2400
    await turn.say("Compaction finished; the summary above is what I kept.")


async def slow(turn: Turn) -> None:
    await turn.say(content.SLOW_INTRO, delay=0.01)
    numbers = " ".join(f"{n}…" for n in range(1, content.SLOW_COUNT + 1)) + " done."
    await turn.say(numbers, delay=0.5)


async def error(turn: Turn) -> None:
    await turn.say("Starting a task that is scripted to fail…\n")
    # Left unfinished on purpose: the failure gives this tool call its final status.
    await turn.start_tool("Warm up the demo model", "other", status="in_progress")
    await turn.pace.wait(0.6)
    raise TurnFailed(content.ERROR_CODE, content.ERROR_MESSAGE)


async def unknown(turn: Turn) -> None:
    v2 = turn.v2
    if v2 is not None:
        await turn.send(v2.sparkle())
        await turn.say("I just sent a `_demo/sparkle` session update, a kind no client knows.")
        return
    await turn.notify("_demo/sparkle", {"sessionId": turn.session.session_id, **content.SPARKLE})
    await turn.say(
        "I just sent a `_demo/sparkle` extension notification (v1 has no room for unknown session update kinds)."
    )


async def everything(turn: Turn) -> None:
    await turn.think(content.THOUGHT)
    await turn.say("Everything at once: a plan, tools (one asks permission), markdown, and more.\n")
    applied = await _planned_work(turn, ask=True)
    await _failing_fetch(turn)
    if not applied:
        await turn.say("You refused the edit, so the file is unchanged; carrying on.\n")
    await turn.say(content.MARKDOWN_ANSWER)
    await notice(turn)
    await compact(turn)
    await unknown(turn)


SCRIPTS: dict[str, Script] = {
    "markdown": markdown,
    "think": think,
    "tools": tools,
    "edit": edit,
    "ask": ask,
    "link": link,
    "plan": plan,
    "notice": notice,
    "compact": compact,
    "slow": slow,
    "error": error,
    "unknown": unknown,
    "everything": everything,
}
