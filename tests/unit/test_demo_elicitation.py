"""The demo agent asks: `ask` (a form tied to a tool call) and `link` (a URL, then `elicitation/complete`).

Driven by the plain-JSON client of test_demo_agent.py, so every message the demo sends is validated
against the negotiated schema as it arrives; the client answers the questions by hand here, and
those answers are validated too. Both protocol versions.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from acp_tui.demo import content
from tests.support.demo_client import CWD, DemoClient, Msg, agent_text, stop_reason, tool_calls
from tests.support.schema_check import validate_client_message

VERSIONS = pytest.mark.parametrize("version", [1, 2])
BOTH_MODES: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}


async def start(client: DemoClient, capabilities: dict[str, Any]) -> str:
    """`initialize` advertising `capabilities` (in the version's own place), then `session/new`."""
    if client.version == 2:
        params = {"protocolVersion": 2, "info": {"name": "test", "version": "0"}, "capabilities": capabilities}
    else:
        params = {
            "protocolVersion": 1,
            "clientInfo": {"name": "test", "version": "0"},
            "clientCapabilities": capabilities,
        }
    validate_client_message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, client.version)
    await client.call("initialize", params)
    reply = await client.call("session/new", {"cwd": CWD, "mcpServers": []})
    session_id: str = reply["result"]["sessionId"]
    return session_id


def answer(client: DemoClient, request: Msg, result: Msg) -> None:
    frame = {"jsonrpc": "2.0", "id": request["id"], "result": result}
    validate_client_message(frame, client.version, answering="elicitation/create")
    client.answer(request["id"], result)


def is_elicitation(msg: Msg) -> bool:
    return msg.get("method") == "elicitation/create"


def prompt(client: DemoClient, session_id: str, text: str) -> int:
    return client.send("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})


async def turn_end(client: DemoClient, request_id: int, start: int) -> tuple[Msg, list[Msg]]:
    reply = await client.response(request_id)
    if client.version == 2:
        await client.wait_for(
            lambda m: m.get("method") == "session/update" and m["params"]["update"].get("state") == "idle", start=start
        )
    return reply, client.received[start:]


@VERSIONS
async def test_ask_sends_a_form_tied_to_its_tool_call_and_reports_the_answer(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await start(client, BOTH_MODES)
        begin = len(client.received)
        request_id = prompt(client, session_id, "ask")
        request = await client.wait_for(is_elicitation, start=begin)
        params = request["params"]
        assert params["mode"] == "form" and params["sessionId"] == session_id
        assert params["requestedSchema"] == content.ASK_SCHEMA
        tool_call_id = params["toolCallId"]
        kinds = {prop["type"] for prop in params["requestedSchema"]["properties"].values()}
        assert kinds == {"string", "integer", "number", "boolean", "array"}
        answer(
            client,
            request,
            {
                "action": "accept",
                "content": {
                    "name": "greeter",
                    "language": "rust",
                    "features": ["tests", "ci"],
                    "width": 88,
                    "private": False,
                },
            },
        )
        reply, messages = await turn_end(client, request_id, begin)
        assert stop_reason(version, reply, messages) == "end_turn"
        text = agent_text(messages)
        assert '**language**: `"rust"`' in text and '**features**: `["tests", "ci"]`' in text and "`88`" in text
        assert tool_calls(version, messages)[tool_call_id]["status"] == "completed"
        if version == 2:
            states = [
                m["params"]["update"]["state"]
                for m in messages
                if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == "state_update"
            ]
            assert states[:3] == ["running", "requires_action", "running"]


@VERSIONS
@pytest.mark.parametrize(
    ("action", "said", "status"),
    [
        ("decline", "You declined", "failed"),
        ("cancel", "dismissed", "cancelled"),
    ],
)
async def test_ask_declined_or_cancelled(version: int, action: str, said: str, status: str) -> None:
    async with DemoClient(version) as client:
        session_id = await start(client, BOTH_MODES)
        begin = len(client.received)
        request_id = prompt(client, session_id, "ask")
        request = await client.wait_for(is_elicitation, start=begin)
        answer(client, request, {"action": action})
        reply, messages = await turn_end(client, request_id, begin)
        assert said in agent_text(messages)
        expected = status if version == 2 else "failed"  # v1 has no `cancelled` tool status
        assert tool_calls(version, messages)[request["params"]["toolCallId"]]["status"] == expected


@VERSIONS
async def test_link_sends_a_url_then_completes_it(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await start(client, BOTH_MODES)
        begin = len(client.received)
        request_id = prompt(client, session_id, "link")
        request = await client.wait_for(is_elicitation, start=begin)
        params = request["params"]
        assert params["mode"] == "url" and params["url"] == content.LINK_URL
        answer(client, request, {"action": "accept"})
        complete = await client.wait_for(lambda m: m.get("method") == "elicitation/complete", start=begin)
        assert complete["params"] == {"elicitationId": params["elicitationId"]}
        assert "id" not in complete  # a notification
        reply, messages = await turn_end(client, request_id, begin)
        assert stop_reason(version, reply, messages) == "end_turn" and "login is complete" in agent_text(messages)


@VERSIONS
async def test_without_the_capability_the_demo_says_so_and_asks_nothing(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await start(client, {"elicitation": {"form": {}}})
        reply, messages = await client.turn(session_id, "link")
        assert not any(is_elicitation(m) for m in messages)
        assert "`link` needs a client that advertises url elicitation" in agent_text(messages)
    async with DemoClient(version) as client:
        session_id = await start(client, {})
        reply, messages = await client.turn(session_id, "ask")
        assert not any(is_elicitation(m) for m in messages)
        assert "`ask` needs a client that advertises form elicitation" in agent_text(messages)


@VERSIONS
async def test_cancelling_the_turn_withdraws_the_question(version: int) -> None:
    async with DemoClient(version) as client:
        session_id = await start(client, BOTH_MODES)
        begin = len(client.received)
        request_id = prompt(client, session_id, "ask")
        request = await client.wait_for(is_elicitation, start=begin)
        client.notify("session/cancel", {"sessionId": session_id})
        withdrawn = await client.wait_for(lambda m: m.get("method") == "$/cancel_request", start=begin)
        assert withdrawn["params"] == {"requestId": request["id"]}
        answer(client, request, {"action": "cancel"})  # the client still answers it once
        reply, messages = await turn_end(client, request_id, begin)
        assert stop_reason(version, reply, messages) == "cancelled"
        await asyncio.sleep(0.05)
