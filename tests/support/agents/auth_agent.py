"""A fake ACP agent that needs a login: stdlib only, independent of acp_tui's protocol code.

Run: ``python auth_agent.py SCRIPT.json`` (an ACP agent on stdin/stdout), or, as the program a terminal
login method runs, ``python auth_agent.py SCRIPT.json --cli login [ARGS...]`` (the method's ``args``).

Script keys (all optional)::

    {
      "version": 2,                         # 1 or 2
      "auth_methods": [...],                # the initialize result's authMethods, as sent
      "logout_capability": false,           # v1: agentCapabilities.auth.logout = {}
      "state": "/tmp/x/state.json",         # the login, kept across restarts (and shared with --cli login)
      "record": "/tmp/x/record.jsonl",      # every line received, one JSON per line
      "require": "session_new",             # where "authentication required" is answered:
                                            #   session_new | prompt (an RPC error) | prompt_idle (v2 idle error)
      "message": "Authentication required", # the -32000 message
      "login_failures": {"agent-login": 1}, # authenticate / auth/login fails this many times first
      "login_hangs": 0,                     # ...or is not answered, this many times first, until the client
                                            #   withdraws it with $/cancel_request (then -32800)
      "env_key": "OPENAI_API_KEY",          # the agent is logged in when this variable is set (non-empty)
      "env_needs_login": false,             # ...and also authenticated with an env_var method's id
      "terminal_exit": 0,                   # --cli login exits with this (0 logs in)
      "terminal_code": null,                # ...or asks for this code on the terminal (interactive)
      "leak_key": false                     # say the key on stderr and in every answer (redaction tests)
    }
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

Message = dict[str, Any]


class AuthAgent:
    def __init__(self, script: dict[str, Any]) -> None:
        self.script = script
        self.version = int(script.get("version", 2))
        self.methods: list[Any] = list(script.get("auth_methods", []))
        self.state_path = Path(script["state"]) if script.get("state") else None
        record = script.get("record")
        self.record = open(record, "a", encoding="utf-8") if record else None
        self.failures: dict[str, int] = dict(script.get("login_failures", {}))
        self.hangs = int(script.get("login_hangs", 0))
        self.hanging: dict[Any, Message] = {}  # login requests left unanswered, by id
        self.authenticated_env = False
        self.prompts = 0
        self.session_id = "auth-session-1"

    # -- login state ------------------------------------------------------------------------------

    def stored(self) -> dict[str, Any]:
        if self.state_path is None or not self.state_path.exists():
            return {}
        data = json.loads(self.state_path.read_text() or "{}")
        return data if isinstance(data, dict) else {}

    def store(self, **values: Any) -> None:
        if self.state_path is not None:
            self.state_path.write_text(json.dumps({**self.stored(), **values}))

    def key(self) -> str:
        name = self.script.get("env_key")
        return os.environ.get(name, "") if name else ""

    def logged_in(self) -> bool:
        if self.stored().get("logged_in"):
            return True
        if self.key():
            return self.authenticated_env or not self.script.get("env_needs_login")
        return False

    # -- wire ---------------------------------------------------------------------------------------

    def write(self, message: Message) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def result(self, request: Message, result: Any) -> None:
        self.write({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def error(self, request: Message, code: int, message: str) -> None:
        self.write({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})

    def update(self, update: Message) -> None:
        self.write(
            {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": self.session_id, "update": update}}
        )

    def auth_required(self, request: Message) -> None:
        self.error(request, -32000, str(self.script.get("message", "Authentication required")))

    def run(self) -> int:
        if self.script.get("leak_key") and self.key():
            sys.stderr.write(f"using key {self.key()}\n")
            sys.stderr.flush()
        for line in sys.stdin:
            if not line.strip():
                continue
            message = json.loads(line)
            if self.record is not None:
                self.record.write(json.dumps(message) + "\n")
                self.record.flush()
            if isinstance(message, dict) and "id" in message and "method" in message:
                self.handle(message)
            elif isinstance(message, dict) and message.get("method") == "$/cancel_request":
                hung = self.hanging.pop((message.get("params") or {}).get("requestId"), None)
                if hung is not None:
                    self.error(hung, -32800, "Request cancelled")
        return 0

    def handle(self, request: Message) -> None:
        method = request["method"]
        params = request.get("params") or {}
        if method == "initialize":
            self.result(request, self.initialize())
        elif method in ("authenticate", "auth/login"):
            self.login(request, params)
        elif method in ("logout", "auth/logout"):
            self.store(logged_in=False)
            self.authenticated_env = False
            self.result(request, {})
        elif method in ("session/new", "session/resume"):
            if self.script.get("require", "session_new") == "session_new" and not self.logged_in():
                self.auth_required(request)
            else:
                self.result(request, {"sessionId": self.session_id} if method == "session/new" else {})
        elif method == "session/prompt":
            self.prompt(request, params)
        else:
            self.error(request, -32601, f"Method not found: {method}")

    def initialize(self) -> Message:
        if self.version >= 2:
            return {
                "protocolVersion": 2,
                "info": {"name": "auth-agent", "title": "Auth Agent", "version": "1.0.0"},
                "capabilities": {"session": {}},
                "authMethods": self.methods,
            }
        caps: Message = {"loadSession": False, "promptCapabilities": {}}
        if self.script.get("logout_capability"):
            caps["auth"] = {"logout": {}}
        return {
            "protocolVersion": 1,
            "agentInfo": {"name": "auth-agent", "version": "1.0.0"},
            "agentCapabilities": caps,
            "authMethods": self.methods,
        }

    def login(self, request: Message, params: Message) -> None:
        method_id = str(params.get("methodId"))
        method = next(
            (m for m in self.methods if isinstance(m, dict) and method_id in (m.get("id"), m.get("methodId"))), None
        )
        if method is None:
            self.error(request, -32602, f"unknown auth method {method_id!r}")
            return
        if method.get("type") == "terminal":
            self.error(request, -32602, "a terminal method must not be passed to authenticate")
            return
        if self.hangs > 0:
            self.hangs -= 1
            self.hanging[request["id"]] = request
            return
        if self.failures.get(method_id, 0) > 0:
            self.failures[method_id] -= 1
            self.error(request, -32603, "login failed: the browser window was closed")
            return
        if method.get("type") == "env_var":
            if not self.key():
                self.error(request, -32000, f"{self.script.get('env_key')} is not set")
                return
            self.authenticated_env = True
        else:
            self.store(logged_in=True)
        self.result(request, {})

    def prompt(self, request: Message, params: Message) -> None:
        self.prompts += 1
        text = "".join(b.get("text", "") for b in params.get("prompt", []) if isinstance(b, dict))
        message_id = f"user-msg-{self.prompts}"
        require = self.script.get("require", "session_new")
        if not self.logged_in() and require == "prompt":
            self.auth_required(request)
            return
        if self.version < 2:
            if not self.logged_in():
                self.auth_required(request)
                return
            self.update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": self.answer(text)}}
            )
            self.result(request, {"stopReason": "end_turn"})
            return
        self.result(request, {"messageId": message_id})
        self.update(
            {"sessionUpdate": "user_message", "messageId": message_id, "content": [{"type": "text", "text": text}]}
        )
        self.update({"sessionUpdate": "state_update", "state": "running"})
        if not self.logged_in():
            self.update(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "error",
                    "error": {"code": -32000, "message": str(self.script.get("message", "Authentication required"))},
                }
            )
            return
        self.update(
            {
                "sessionUpdate": "agent_message",
                "messageId": f"agent-{message_id}",
                "content": [{"type": "text", "text": self.answer(text)}],
            }
        )
        self.update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})

    def answer(self, text: str) -> str:
        leak = f" (your key is {self.key()})" if self.script.get("leak_key") and self.key() else ""
        return f"echo: {text}{leak}"


def terminal_login(script: dict[str, Any], args: list[str]) -> int:
    """The program a terminal method runs: log in (or fail) and say what it was given."""
    agent = AuthAgent(script)
    code = int(script.get("terminal_exit", 0))
    wanted = script.get("terminal_code")
    if wanted is not None:  # an interactive login: it needs the real terminal
        typed = input("auth-agent: enter the code shown in your browser: ")
        code = 0 if typed.strip() == wanted else 1
    agent.store(
        terminal_args=args,
        terminal_env={k: v for k, v in os.environ.items() if k.startswith("AUTH_AGENT_")},
        terminal_cwd=os.getcwd(),
    )
    if code == 0:
        agent.store(logged_in=True)
    print("auth-agent: logged in" if code == 0 else "auth-agent: login failed")
    return code


def main(argv: list[str]) -> int:
    script: dict[str, Any] = json.loads(Path(argv[1]).read_text())
    if len(argv) > 2 and argv[2] == "--cli":
        return terminal_login(script, argv[3:])
    return AuthAgent(script).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
