"""The demo agent, driven over pipes by a plain-JSON client, in both protocol versions.

Every message the agent sends is validated against the negotiated schema as it arrives; the
tests then assert what each scripted behaviour does (permission answers, cancellation, errors).
No textual, no protocol code of ours on the client side: the client is `json` and asyncio.
"""

from __future__ import annotations

import base64
import json

import pytest

from tests.support.demo_client import (
    CWD,
    DemoClient,
    Msg,
    _is_idle,
    _update,
    agent_text,
    allow,
    stop_reason,
    tool_calls,
    updates,
)


def dismiss(_request: Msg) -> Msg:
    return {"outcome": {"outcome": "cancelled"}}


def _chunk_text(msg: Msg) -> str:
    update = _update(msg)
    if update.get("sessionUpdate") != "agent_message_chunk":
        return ""
    text: str = update["content"].get("text", "")
    return text


def assert_our_codec_decodes(client: DemoClient, session_id: str) -> list[str]:
    """Cross-check with `acp_tui.protocol.codec`: decode every update and permission request.

    Returns the kinds decoded as `UnknownUpdate`.
    """
    from acp_tui.protocol import codec, v2

    unknown: list[str] = []
    for msg in client.received:
        params = json.dumps(msg.get("params")).encode()
        if msg.get("method") == "session/update":
            decoded_session, update = codec.decode_update(params, client.version)
            assert decoded_session == session_id
            if isinstance(update, v2.UnknownUpdate):
                unknown.append(update.kind)
        elif msg.get("method") == "session/request_permission":
            codec.decode_permission_request(params, client.version)
    return unknown


VERSIONS = pytest.mark.parametrize("version", [1, 2])


# --- setup and lifecycle --------------------------------------------------------------------------


@VERSIONS
async def test_initialize_and_new_session_advertise_the_demo(version: int) -> None:
    async with DemoClient(version) as client:
        init = (await client.initialize())["result"]
        assert init["protocolVersion"] == version
        if version == 2:
            assert init["info"]["name"] == "acp-tui-demo"
            assert init["capabilities"]["session"]["prompt"]["embeddedContext"] == {}
        else:
            assert init["agentInfo"]["name"] == "acp-tui-demo"
            assert init["agentCapabilities"]["sessionCapabilities"]["resume"] == {}
        reply = await client.call("session/new", {"cwd": CWD, "mcpServers": []})
        options = reply["result"]["configOptions"]
        assert [o["configId" if version == 2 else "id"] for o in options] == ["mode", "model"]
        commands = await client.wait_for(lambda m: _update(m).get("sessionUpdate") == "available_commands_update")
        names = [c["name"] for c in _update(commands)["availableCommands"]]
        assert {"markdown", "think", "tools", "edit", "plan", "slow", "error", "everything"} <= set(names)
        welcome_kind = "agent_message" if version == 2 else "agent_message_chunk"
        welcome = _update(await client.wait_for(lambda m: _update(m).get("sessionUpdate") == welcome_kind))
        text = welcome["content"][0]["text"] if version == 2 else welcome["content"]["text"]
        assert "everything" in text and "slow" in text
        if version == 2:
            assert welcome["messageId"]


async def test_v2_prompt_lifecycle_is_followed_to_the_letter() -> None:
    async with DemoClient(2) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "hello there")
        message_id = reply["result"]["messageId"]
        kinds = [u["sessionUpdate"] for u in updates(messages)]
        user = updates(messages, "user_message")
        assert len(user) == 1 and user[0]["messageId"] == message_id
        assert user[0]["content"] == [{"type": "text", "text": "hello there"}]
        assert kinds[0] == "user_message" and kinds[1] == "state_update"
        assert updates(messages)[1]["state"] == "running"
        assert kinds[-2:] == ["usage_update", "state_update"]
        assert updates(messages)[-1] == {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        assert updates(messages, "usage_update")[0]["cost"]["currency"] == "USD"
        # The response (insertion) precedes every update of the message it names.
        assert messages.index(reply) < messages.index(next(m for m in messages if _update(m) is user[0]))
        chunks = updates(messages, "agent_message_chunk")
        assert len({c["messageId"] for c in chunks}) == 1
        assert "hello" in agent_text(messages) and "there" in agent_text(messages)


async def test_v1_turn_ends_with_the_prompt_response_and_no_v2_updates() -> None:
    async with DemoClient(1) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "echo me")
        assert reply["result"] == {"stopReason": "end_turn"}
        kinds = {u["sessionUpdate"] for u in updates(messages)}
        assert "usage_update" in kinds
        assert not kinds & {"state_update", "user_message", "agent_message"}
        assert messages[-1] is reply


# --- behaviours --------------------------------------------------------------------------------------


@VERSIONS
async def test_markdown_streams_a_formatted_answer_in_word_chunks(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "Show me MARKDOWN please")
        assert stop_reason(version, reply, messages) == "end_turn"
        text = agent_text(messages)
        assert "## " in text and "```python" in text and "**" in text and "- " in text
        assert len(updates(messages, "agent_message_chunk")) > 50


@VERSIONS
async def test_think_streams_a_thought_before_the_answer(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "think")
        kinds = [u["sessionUpdate"] for u in updates(messages) if u["sessionUpdate"].startswith("agent_")]
        assert kinds[0] == "agent_thought_chunk" and kinds[-1] == "agent_message_chunk"
        assert kinds.index("agent_message_chunk") > max(i for i, k in enumerate(kinds) if k == "agent_thought_chunk")
        assert stop_reason(version, reply, messages) == "end_turn"


@VERSIONS
async def test_tools_shows_read_edit_execute_and_a_failure(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "tools")
        calls = list(tool_calls(version, messages).values())
        by_kind = {call["kind"]: call for call in calls}
        assert set(by_kind) == {"read", "edit", "execute", "fetch"}
        read = by_kind["read"]
        assert read["status"] == "completed"
        assert read["locations"] == [{"path": f"{CWD}/src/greet.py", "line": 4}]
        assert "def greet" in read["content"][0]["content"]["text"]
        diff = by_kind["edit"]["content"][0]
        assert by_kind["edit"]["status"] == "completed" and diff["type"] == "diff"
        if version == 2:
            assert diff["changes"] == [{"operation": "modify", "path": f"{CWD}/src/greet.py"}]
            assert diff["patch"]["format"] == "git_patch" and '+    return f"Hello, {name}!"' in diff["patch"]["text"]
        else:
            assert diff["path"] == f"{CWD}/src/greet.py" and 'f"Hello' in diff["newText"] and diff["oldText"]
        execute = by_kind["execute"]
        assert execute["status"] == "completed"
        if version == 2:
            terminal_id = execute["content"][0]["terminalId"]
            terminal = [u for u in updates(messages) if u.get("terminalId") == terminal_id]
            assert terminal[0]["sessionUpdate"] == "terminal_update" and terminal[0]["command"].startswith(
                "python -m pytest"
            )
            assert terminal[0]["cwd"] == CWD
            output = b"".join(
                base64.b64decode(u["data"]) for u in terminal if u["sessionUpdate"] == "terminal_output_chunk"
            )
            assert b"\x1b[32m" in output and b"3 passed" in output
            assert terminal[-1]["exitStatus"] == {"exitCode": 0}
        else:
            text = execute["content"][0]["content"]["text"]
            assert "3 passed" in text and "\x1b" not in text
        failed = by_kind["fetch"]
        assert failed["status"] == "failed" and "could not resolve" in failed["content"][0]["content"]["text"]
        assert stop_reason(version, reply, messages) == "end_turn"


@VERSIONS
@pytest.mark.parametrize("option", ["allow_once", "reject_once"])
async def test_edit_asks_permission_and_obeys_the_answer(version: int, option: str) -> None:
    async with DemoClient(version, permission=allow(option)) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "edit")
        requests = [m for m in messages if m.get("method") == "session/request_permission"]
        assert len(requests) == 1
        params = requests[0]["params"]
        kinds = [o["kind"] for o in params["options"]]
        assert kinds == ["allow_once", "allow_always", "reject_once", "reject_always"]
        if version == 2:
            assert params["title"] and params["description"] and params["subject"]["type"] == "tool_call"
            tool_call_id = params["subject"]["toolCall"]["toolCallId"]
            states = [u["state"] for u in updates(messages, "state_update")]
            assert states == ["running", "requires_action", "running", "idle"]
        else:
            tool_call_id = params["toolCall"]["toolCallId"]
        call = tool_calls(version, messages)[tool_call_id]
        if option == "allow_once":
            assert call["status"] == "completed" and call["content"][0]["type"] == "diff"
        else:
            assert call["status"] == "failed"
            assert "refused" in agent_text(messages)
        assert stop_reason(version, reply, messages) == "end_turn"


@VERSIONS
async def test_edit_dismissed_permission_ends_the_turn_cancelled(version: int) -> None:
    async with DemoClient(version, permission=dismiss) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "edit")
        assert stop_reason(version, reply, messages) == "cancelled"
        (call,) = tool_calls(version, messages).values()
        assert call["status"] == ("cancelled" if version == 2 else "failed")


async def test_always_allow_is_remembered_for_the_next_edit() -> None:
    async with DemoClient(2, permission=allow("allow_always")) as client:
        session_id = await client.new_session()
        await client.turn(session_id, "edit")
        client.permission = dismiss
        reply, messages = await client.turn(session_id, "edit")
        assert not [m for m in messages if m.get("method") == "session/request_permission"]
        (call,) = tool_calls(2, messages).values()
        assert call["status"] == "completed"


@VERSIONS
async def test_plan_entries_complete_as_the_tools_run(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "plan")
        plans = updates(messages, "plan_update" if version == 2 else "plan")
        entries = [p["plan"]["entries"] if version == 2 else p["entries"] for p in plans]
        assert len(plans) == 4
        assert [e["status"] for e in entries[0]] == ["in_progress", "pending", "pending"]
        assert [e["status"] for e in entries[-1]] == ["completed"] * 3
        if version == 2:
            assert {p["plan"]["planId"] for p in plans} == {"demo-plan"}
        assert all(call["status"] == "completed" for call in tool_calls(version, messages).values())


@VERSIONS
async def test_notice_is_v2_only(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "notice")
        notices = updates(messages, "notice")
        if version == 2:
            assert [n["severity"] for n in notices] == ["warning", "info"]
            assert all(n["title"] for n in notices)
        else:
            assert notices == [] and "v2" in agent_text(messages)


@VERSIONS
async def test_compact_streams_a_summary_in_v2(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "compact")
        if version == 1:
            assert "v2" in agent_text(messages)
            return
        compaction = [u for u in updates(messages) if u["sessionUpdate"].startswith("compaction")]
        kinds = [(u["sessionUpdate"], u.get("status")) for u in compaction]
        assert kinds[0] == ("compaction_update", "in_progress") and kinds[-1] == ("compaction_update", "completed")
        summary = "".join(u["content"]["text"] for u in compaction if u["sessionUpdate"] == "compaction_summary_chunk")
        assert summary.startswith("## Retained context")
        assert len({u["compactionId"] for u in compaction}) == 1


@VERSIONS
async def test_error_ends_the_turn_with_an_error(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "error")
        (call,) = tool_calls(version, messages).values()
        assert call["status"] == "failed"
        if version == 2:
            assert "messageId" in reply["result"]
            idle = updates(messages)[-1]
            assert idle["stopReason"] == "error" and idle["error"]["code"] == -32603 and idle["error"]["message"]
        else:
            assert reply["error"]["code"] == -32603 and "overheated" in reply["error"]["message"]
        assert assert_our_codec_decodes(client, session_id) == []


@VERSIONS
async def test_unknown_sends_an_update_kind_no_client_knows(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "unknown")
        if version == 2:
            (sparkle,) = updates(messages, "_demo/sparkle")
            assert sparkle["sparkles"] == 3
        else:
            (sparkle,) = [m for m in messages if m.get("method") == "_demo/sparkle"]
            assert sparkle["params"]["sessionId"] == session_id
        assert stop_reason(version, reply, messages) == "end_turn"


@VERSIONS
async def test_everything_plays_every_behaviour_in_one_turn(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "everything")
        kinds = {u["sessionUpdate"] for u in updates(messages)}
        assert {"agent_thought_chunk", "agent_message_chunk", "usage_update"} <= kinds
        assert any(m.get("method") == "session/request_permission" for m in messages)
        if version == 2:
            assert {
                "plan_update",
                "tool_call_update",
                "terminal_output_chunk",
                "notice",
                "compaction_update",
                "_demo/sparkle",
            } <= kinds
        else:
            assert {"plan", "tool_call", "tool_call_update"} <= kinds
        assert "```python" in agent_text(messages)
        assert stop_reason(version, reply, messages) == "end_turn"
        # Our own client codec reads it all; only the deliberate `_demo/sparkle` is unknown.
        assert assert_our_codec_decodes(client, session_id) == (["_demo/sparkle"] if version == 2 else [])


@VERSIONS
async def test_anything_else_is_echoed_with_its_words(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        reply, messages = await client.turn(session_id, "Bonjour, le monde")
        text = agent_text(messages)
        assert "Bonjour, le monde" in text and "`monde`" in text and "Words (3)" in text


# --- cancellation and queueing ----------------------------------------------------------------------


@VERSIONS
async def test_cancel_during_slow_stops_the_turn_as_cancelled(version: int) -> None:
    async with DemoClient(version, speed=0.2) as client:
        session_id = await client.new_session()
        start = len(client.received)
        request_id = client.send(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "slow"}]}
        )
        await client.wait_for(lambda m: "3…" in _chunk_text(m), start=start)
        client.notify("session/cancel", {"sessionId": session_id})
        reply = await client.response(request_id)
        if version == 2:
            await client.wait_for(lambda m: _is_idle(m, session_id), start=start)
        messages = client.received[start:]
        assert stop_reason(version, reply, messages) == "cancelled"
        assert "done." not in agent_text(messages)


async def test_v2_second_prompt_is_queued_and_cancel_withdraws_it() -> None:
    async with DemoClient(2, speed=0.2) as client:
        session_id = await client.new_session()
        start = len(client.received)
        first = client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "slow"}]})
        second = client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "hi"}]})
        await client.response(first)
        await client.wait_for(lambda m: "2…" in _chunk_text(m), start=start)
        assert not [m for m in client.received if m.get("id") == second]
        client.notify("session/cancel", {"sessionId": session_id})
        withdrawn = await client.response(second)
        assert withdrawn["error"]["code"] == -32800
        await client.wait_for(lambda m: _is_idle(m, session_id), start=start)
        assert len(updates(client.received[start:], "user_message")) == 1


async def test_v2_cancel_request_withdraws_a_queued_prompt_only() -> None:
    async with DemoClient(2, speed=0.2) as client:
        session_id = await client.new_session()
        start = len(client.received)
        first = client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "slow"}]})
        second = client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "hi"}]})
        await client.response(first)
        client.notify("$/cancel_request", {"requestId": second})
        client.notify("$/cancel_request", {"requestId": first})  # already inserted: no effect
        assert (await client.response(second))["error"]["code"] == -32800
        await client.wait_for(lambda m: "2…" in _chunk_text(m), start=start)
        client.notify("session/cancel", {"sessionId": session_id})
        await client.wait_for(lambda m: _is_idle(m, session_id), start=start)
        assert stop_reason(2, {}, client.received[start:]) == "cancelled"


@VERSIONS
async def test_cancel_while_permission_is_pending(version: int) -> None:
    async with DemoClient(version, permission=lambda _request: None) as client:
        session_id = await client.new_session()
        start = len(client.received)
        request_id = client.send(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "edit"}]}
        )
        asked = await client.wait_for(lambda m: m.get("method") == "session/request_permission", start=start)
        client.notify("session/cancel", {"sessionId": session_id})
        client.answer(asked["id"], {"outcome": {"outcome": "cancelled"}})
        reply = await client.response(request_id)
        if version == 2:
            await client.wait_for(lambda m: _is_idle(m, session_id), start=start)
        messages = client.received[start:]
        assert stop_reason(version, reply, messages) == "cancelled"
        (call,) = tool_calls(version, messages).values()
        assert call["status"] == ("cancelled" if version == 2 else "failed")


async def test_closing_stdin_mid_turn_exits_cleanly() -> None:
    async with DemoClient(2, speed=1.0) as client:
        session_id = await client.new_session()
        client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "slow"}]})
        await client.wait_for(lambda m: bool(_chunk_text(m)))
    # __aexit__ closed stdin and asserted exit status 0 and valid messages.


async def test_v2_queued_prompt_is_inserted_when_its_turn_starts() -> None:
    async with DemoClient(2) as client:
        session_id = await client.new_session()
        start = len(client.received)
        first = client.send(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "markdown"}]}
        )
        second = client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "hi"}]})
        replies = [await client.response(first), await client.response(second)]
        await client.wait_for(
            lambda m: m is not replies[1] and _is_idle(m, session_id), start=client.received.index(replies[1])
        )
        messages = client.received[start:]
        ids = [r["result"]["messageId"] for r in replies]
        assert ids[0] != ids[1]
        first_idle = next(i for i, m in enumerate(messages) if _is_idle(m, session_id))
        assert messages.index(replies[1]) > first_idle
        assert [u["messageId"] for u in updates(messages, "user_message")] == ids


async def test_v2_tool_call_cancel_stops_the_terminal_but_not_the_turn() -> None:
    async with DemoClient(2, speed=0.5) as client:
        session_id = await client.new_session()
        start = len(client.received)
        client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "tools"}]})
        created = await client.wait_for(
            lambda m: _update(m).get("kind") == "execute" and "capabilities" in _update(m), start=start
        )
        tool_call_id = _update(created)["toolCallId"]
        assert _update(created)["capabilities"] == {"cancel": {}}
        await client.wait_for(lambda m: _update(m).get("sessionUpdate") == "terminal_output_chunk", start=start)
        accepted = await client.call("tool_call/cancel", {"sessionId": session_id, "toolCallId": tool_call_id})
        assert accepted["result"] == {}
        await client.wait_for(lambda m: _is_idle(m, session_id), start=start)
        messages = client.received[start:]
        assert stop_reason(2, {}, messages) == "end_turn"
        call = tool_calls(2, messages)[tool_call_id]
        assert call["status"] == "cancelled"
        final = [u for u in updates(messages, "tool_call_update") if u["toolCallId"] == tool_call_id][-1]
        assert final["capabilities"] is None  # no longer advertised once final
        exits = [u for u in updates(messages, "terminal_update") if "exitStatus" in u]
        assert exits[-1]["exitStatus"] == {"signal": "SIGINT"}
        again = await client.call("tool_call/cancel", {"sessionId": session_id, "toolCallId": tool_call_id})
        assert again["error"]["code"] == -32602


# --- other methods ---------------------------------------------------------------------------------------


@VERSIONS
async def test_resume_config_list_close_and_unknown_methods(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await client.new_session()
        resumed = await client.call("session/resume", {"sessionId": "elsewhere", "cwd": CWD, "mcpServers": []})
        assert "configOptions" in resumed["result"]
        reply, messages = await client.turn("elsewhere", "hi")
        assert stop_reason(version, reply, messages) == "end_turn"
        value = {"type": "id", "value": "ask"} if version == 2 else {"value": "ask"}
        changed = await client.call("session/set_config_option", {"sessionId": session_id, "configId": "mode", **value})
        mode = changed["result"]["configOptions"][0]
        assert mode["currentValue"] == "ask"
        bad = await client.call(
            "session/set_config_option", {"sessionId": session_id, "configId": "mode", **value, "value": "nope"}
        )
        assert bad["error"]["code"] == -32602
        listed = await client.call("session/list", {})
        assert {s["sessionId"] for s in listed["result"]["sessions"]} == {session_id, "elsewhere"}
        closed = await client.call("session/close", {"sessionId": session_id})
        assert closed["result"] == {}
        missing = await client.call(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "x"}]}
        )
        assert missing["error"]["code"] == -32002
        unknown = await client.call("session/fly", {"sessionId": session_id})
        assert unknown["error"]["code"] == -32601
        if version == 1:
            v2_only = await client.call("tool_call/cancel", {"sessionId": "elsewhere", "toolCallId": "call-1"})
            assert v2_only["error"]["code"] == -32601


async def test_v2_resume_rejects_an_unsupported_replay_cursor() -> None:
    async with DemoClient(2) as client:
        session_id = await client.new_session()
        reply = await client.call(
            "session/resume", {"sessionId": session_id, "cwd": CWD, "replayFrom": {"type": "_somewhere"}}
        )
        assert reply["error"]["code"] == -32602
        ok = await client.call("session/resume", {"sessionId": session_id, "cwd": CWD, "replayFrom": {"type": "start"}})
        assert "result" in ok
        unknown = await client.call("session/resume", {"sessionId": "s", "cwd": CWD, "replayFrom": {"type": "start"}})
        assert unknown["error"]["code"] == -32002  # no history to replay
