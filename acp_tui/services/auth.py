"""The authentication service: terminal logins advertised, and logging the user in when the agent asks.

Advertising: v1 `clientCapabilities.auth.terminal: true`, v2 `capabilities.auth.terminal: {}`, because
acp-tui can run the configured agent program interactively (agents list terminal methods only then;
docs/protocol.md §2.4). The service answers no agent→client request.

Logging in is driven by the session controller when the agent says "authentication required" (-32000 from
`session/new`, `session/resume` or a prompt, or an idle carrying that error) and it listed methods, or
named the variable it lacks. `log_in` asks through a `LoginAsker` until one method works or the user gives
up, and says what must happen next:

* **agent method**: `authenticate` (v1) / `auth/login` (v2) with the method id, progress shown; success
  is `LoggedIn` (retry on this connection), an error is shown and the list offered again. The request has
  no time limit (a browser or device-code login takes its time) but the user may withdraw it (Ctrl-C:
  `stop_login`): `$/cancel_request` goes to the agent, its late answer is dropped, and the login ends as
  `LoginCancelled(stopped=True)`;
* **terminal method**: the user confirms the exact command (the agent program, the method's `args`
  appended, its `env` added), the UI suspends itself and runs it in the real terminal; exit 0 is
  `RestartNeeded` (a fresh agent reads the new credentials), anything else is a failure and the list again.
  Never passed to `authenticate`/`auth/login`. What is shown is what runs: the program is looked up on the
  user's own `PATH` (never one the agent's `env` sets) and shown and run by that absolute path, and the
  agent's variables that change which program runs or what it loads (`changes_what_runs`: `PATH`,
  `LD_*`, `PYTHON*`, `NODE_OPTIONS`, …) are not set, and named in the dialog;
* **agent method wanting a key** (`_meta["api-key"]`, Gemini CLI's "Gemini API key"): `authenticate`
  alone would answer "logged in" and the agent would still lack the key, so it is handled like an env_var
  method for the variable its hint names (the user names one when it names none), the method's id kept
  for after the restart;
* **env_var method** (dialect) and the client's own **key entry** ("set OPENAI_API_KEY for the agent"):
  masked inputs, each value registered as a secret (`acp_tui.secrets`), then `RestartNeeded` with the
  variables for the agent's process only (and, for the agent's method, its id to `authenticate` with if
  the fresh agent still wants it);
* unknown types are listed with the reason they cannot be used, never offered.

Logging out (`logout_method`): v2 `auth/logout`, v1 `logout` when advertised, never when `authMethods`
was empty or absent.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, assert_never

import msgspec

from acp_tui import secrets
from acp_tui.catalogue import key_variable
from acp_tui.protocol.auth import (
    AgentLogin,
    ApiKeyHint,
    AuthMethod,
    EnvVarLogin,
    LoginVariable,
    LogoutRequest,
    TerminalLogin,
    UnsupportedLogin,
    decode_auth_methods,
    login_method_name,
    login_request,
    logout_method,
    valid_env_name,
)
from acp_tui.protocol.jsonrpc import RpcError
from acp_tui.sanitize import plain
from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler

T = TypeVar("T")

__all__ = [
    "AUTH_CAPABILITIES",
    "AgentRequest",
    "AuthService",
    "KeyEntry",
    "LoggedIn",
    "LoginAsker",
    "LoginAttempt",
    "LoginCancelled",
    "LoginChoice",
    "LoginInterrupted",
    "LoginOutcome",
    "LoginRequest",
    "LoginStopped",
    "RestartNeeded",
    "SecretRequest",
    "TerminalCommand",
    "TerminalOutcome",
    "changes_what_runs",
    "resolve_program",
    "variable_named_in",
]

#: What the service advertises (each schema's shape: v2 an empty object, v1 a boolean).
AUTH_CAPABILITIES = Capabilities(v2={"auth": {"terminal": {}}}, v1={"auth": {"terminal": True}})

Severity = Literal["info", "warning", "error"]

#: Sends one client→agent request and returns its raw result; raises `RpcError` when the agent refuses
#: and `LoginInterrupted` when the agent is gone (the controller adapts the connection to this).
AgentRequest = Callable[[str, Any], Awaitable[object]]

#: An upper-case variable name that reads like a credential, e.g. in "OPENAI_API_KEY is not set".
_NAMED_VARIABLE = re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_KEY|KEY|TOKEN|SECRET|ACCESS_KEY))\b")


#: Variables a terminal method may not set because they change which program runs, or what it loads or
#: executes on start, so the command shown would not be what runs. From each tool's own manual:
#: execvp(3) `PATH`; sh(1) `ENV`, `IFS`; bash(1) `BASH_ENV`, `SHELLOPTS`, `BASHOPTS`, `PS4`, exported
#: functions (`BASH_FUNC_*`); ld.so(8) `LD_*`, glibc `GCONV_PATH`, `LOCPATH`, `NLSPATH`, `HOSTALIASES`;
#: dyld(1) `DYLD_*`; python(1) `PYTHON*`; node(1) `NODE_*`, npm's `NPM_CONFIG_*`; perlrun(1) `PERL*`;
#: ruby(1) `RUBY*`, `GEM_*`; java `JAVA_TOOL_OPTIONS`, `_JAVA_OPTIONS`, `JDK_JAVA_OPTIONS`, `CLASSPATH`;
#: git(1) `GIT_*` (`GIT_EXEC_PATH`, `GIT_SSH_COMMAND`, `GIT_CONFIG_*`, …); Lua `LUA_*`; OpenSSL
#: `OPENSSL_CONF`, `OPENSSL_ENGINES`; and `HOME` / `XDG_*`, which choose the configuration files
#: (`~/.gitconfig`, `~/.npmrc`, Python's user site-packages) that run code of their own.
RUN_CHANGING_NAMES: frozenset[str] = frozenset(
    {
        "PATH",
        "ENV",
        "IFS",
        "BASH_ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "GCONV_PATH",
        "LOCPATH",
        "NLSPATH",
        "HOSTALIASES",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        "OPENSSL_CONF",
        "OPENSSL_ENGINES",
        "HOME",
        "ZDOTDIR",
        "ELECTRON_RUN_AS_NODE",
    }
)
RUN_CHANGING_PREFIXES: tuple[str, ...] = (
    "LD_",
    "DYLD_",
    "PYTHON",
    "NODE_",
    "NPM_CONFIG_",
    "PERL",
    "RUBY",
    "GEM_",
    "GIT_",
    "BASH_FUNC_",
    "LUA_",
    "XDG_",
)


def changes_what_runs(name: str) -> bool:
    """Does setting `name` change which program runs or what it loads (`RUN_CHANGING_NAMES`)? Case-blind."""
    upper = name.upper()
    return upper in RUN_CHANGING_NAMES or upper.startswith(RUN_CHANGING_PREFIXES)


def resolve_program(program: str, search_path: str | None, cwd: Path) -> str | None:
    """`program` as an absolute path: looked up on `search_path` (the user's `PATH`) unless it names a folder,
    in which case a relative one is taken from `cwd` (where it runs); None when it is not an executable file."""
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        candidate = program if os.path.isabs(program) else os.path.join(cwd, program)
        return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None
    found = shutil.which(program, path=search_path if search_path is not None else os.defpath)
    return os.path.abspath(found) if found is not None else None


class LoginInterrupted(Exception):
    """The agent went away while a login request was pending."""


class LoginStopped(Exception):
    """The user withdrew the login request in flight (`AuthService.stop_login`)."""


class KeyEntry(msgspec.Struct, frozen=True):
    """The client's own option, whatever the agent lists: set a key variable for the agent's process.

    `variable` is the name the agent's error message gave, if it named one (the dialog suggests it).
    """

    variable: str | None = None


#: What the user picks in the login dialog.
LoginChoice: TypeAlias = AuthMethod | KeyEntry


class LoginRequest(msgspec.Struct, frozen=True):
    """The login dialog's content: why (the agent's error, raw: the UI sanitises), the methods, the last failure."""

    agent: str
    reason: str | None
    methods: tuple[AuthMethod, ...]
    key_entry: KeyEntry = KeyEntry()
    #: what went wrong with the previous choice (already sanitised), shown above the list
    failure: str | None = None

    @property
    def offered(self) -> tuple[AuthMethod, ...]:
        """The methods the user may choose (unsupported ones are only listed)."""
        return tuple(m for m in self.methods if not isinstance(m, UnsupportedLogin))


class TerminalCommand(msgspec.Struct, frozen=True):
    """A terminal method ready to run: the exact argv (the program by absolute path), the complete
    environment, the folder, and the names of the agent's variables that are not set."""

    method: TerminalLogin
    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path
    #: the agent's variables left out because they change what runs or loads (`changes_what_runs`)
    refused_env: tuple[str, ...] = ()

    @property
    def added_env(self) -> tuple[tuple[str, str], ...]:
        """The variables the agent's method adds, as set (the last value of a repeated name; the refused left
        out): shown to the user; the rest is the user's own environment."""
        refused = set(self.refused_env)
        return tuple(dict((name, value) for name, value in self.method.env if name not in refused).items())


class TerminalOutcome(msgspec.Struct, frozen=True):
    """How a terminal login ended: an exit code (negative: killed by that signal) or why it did not run."""

    exit_code: int | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def describe(self) -> str:
        if self.exit_code is None:
            return self.error or "it could not be run"
        if self.exit_code < 0:
            return f"it was stopped by signal {-self.exit_code}"
        return f"it exited with status {self.exit_code}"


class SecretRequest(msgspec.Struct, frozen=True):
    """Ask for variables in masked fields; with no `variables`, the user names one (`suggested` prefilled)."""

    title: str
    variables: tuple[LoginVariable, ...] = ()
    suggested: str | None = None
    link: str | None = None


class LoginAsker(Protocol):
    """How the user is asked; the chat screen implements it with dialogs, tests with a script."""

    async def choose_login(self, request: LoginRequest) -> LoginChoice | None:
        """The method (or the key entry) chosen from `request`, or None when the user does not log in now."""
        ...

    async def confirm_terminal_login(self, command: TerminalCommand) -> bool:
        """May `command` run? It is shown as it will run: argv and the variables the agent adds."""
        ...

    async def ask_secrets(self, request: SecretRequest) -> dict[str, str] | None:
        """Variable name → value typed in masked fields, or None when the user goes back."""
        ...

    async def run_terminal_login(self, command: TerminalCommand) -> TerminalOutcome:
        """Run `command` interactively in the real terminal (the UI steps aside) and say how it ended."""
        ...


class LoggedIn(msgspec.Struct, frozen=True):
    """The agent accepted the login on this connection: retry what failed."""

    how: str


class RestartNeeded(msgspec.Struct, frozen=True):
    """A fresh agent must start (it reads credentials or variables at start), then retry what failed.

    `env` is set for the agent's process only; `then_login` is the agent's method id to log in with if the
    fresh agent still answers "authentication required".
    """

    how: str
    env: Mapping[str, str] = msgspec.field(default_factory=dict)
    then_login: str | None = None


class LoginCancelled(msgspec.Struct, frozen=True):
    """The user did not log in (or the agent went away: `why`; `stopped`: the user withdrew the agent's login)."""

    why: str | None = None
    stopped: bool = False


LoginOutcome: TypeAlias = LoggedIn | RestartNeeded | LoginCancelled


class LoginAttempt(msgspec.Struct, frozen=True):
    """One "authentication required" to resolve: why, what the agent offers, and how to reach it."""

    reason: str | None
    methods: tuple[AuthMethod, ...]
    request: AgentRequest
    #: the environment the agent runs in (a terminal method's program gets it, plus the method's `env`)
    base_env: Mapping[str, str]
    #: "logging in…" while an agent method runs (None: done)
    progress: Callable[[str | None], None] = lambda _text: None
    #: a line for the conversation (a failed attempt)
    note: Callable[[str, Severity], None] = lambda _text, _severity: None


def variable_named_in(message: str | None) -> str | None:
    """The credential variable an error message names ("OPENAI_API_KEY is not set"), if any."""
    if not message:
        return None
    found = _NAMED_VARIABLE.search(message)
    return found.group(1) if found is not None else None


class AuthService:
    """Advertises terminal logins and runs the login dialog's choices (see the module docstring)."""

    name = "auth"

    def __init__(self, asker: LoginAsker, *, agent_name: str, agent_argv: Sequence[str], cwd: Path) -> None:
        self.asker = asker
        self.agent_name = agent_name
        self.agent_argv = tuple(agent_argv)
        self.cwd = cwd
        self._context: ServiceContext | None = None
        #: the `authenticate` / `auth/login` request awaiting the agent's answer, and whether the user stopped it
        self._step: asyncio.Future[Any] | None = None
        self._stopping = False

    # -- ClientService -------------------------------------------------------------------------------

    def capabilities(self) -> Capabilities:
        return AUTH_CAPABILITIES

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {}  # the agent asks the client nothing about logins

    def bind(self, context: ServiceContext) -> None:
        self._context = context

    def turn_cancelled(self) -> None:
        """A login is not part of a turn: cancelling the turn leaves it be."""

    async def close(self) -> None:
        """Nothing runs on the agent's behalf (a terminal login runs while the connection still lives)."""

    # -- what the agent offers -----------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._context.version if self._context is not None else 2

    def decode(self, raw_methods: object) -> tuple[AuthMethod, ...]:
        """The agent's `authMethods` (as sent in `initialize`), typed for this connection's version."""
        return decode_auth_methods(raw_methods, self.version)

    def can_help(self, methods: tuple[AuthMethod, ...], reason: str | None) -> bool:
        """Is there anything to offer: a listed method, or a variable the agent's error names?"""
        return bool(methods) or variable_named_in(reason) is not None

    def logout_method(self, raw_methods: object) -> str | None:
        """The logout request for this agent, or None when it may not be called (docs/protocol.md §2.4)."""
        context = self._context
        capabilities = dict(context.agent_capabilities) if context is not None else {}
        return logout_method(self.version, raw_methods, capabilities)

    def terminal_command(self, method: TerminalLogin, base_env: Mapping[str, str]) -> TerminalCommand | str:
        """The configured agent program with the method's `args` appended and its `env` over `base_env` (the
        user's environment), or why it cannot run.

        The program is resolved on `base_env`'s `PATH`, so a `PATH` in the method's `env` cannot choose it,
        and runs by that absolute path; variables that change what runs or loads are left out and named.
        """
        if not self.agent_argv:
            return "there is no agent program to run"
        program = resolve_program(self.agent_argv[0], base_env.get("PATH"), self.cwd)
        if program is None:
            return f"{plain(self.agent_argv[0])} was not found on your PATH"
        refused = tuple(dict.fromkeys(name for name, _ in method.env if changes_what_runs(name)))
        command = TerminalCommand(method, (program, *self.agent_argv[1:], *method.args), {}, self.cwd, refused)
        return TerminalCommand(method, command.argv, {**base_env, **dict(command.added_env)}, self.cwd, refused)

    def _key_variable(self, methods: Sequence[AuthMethod]) -> str | None:
        """The key variable to suggest when the agent's error names none: one its methods name (an env_var
        method's first secret, an agent method's key hint), else the known agent's (`catalogue.key_variable`)."""
        for method in methods:
            match method:
                case EnvVarLogin(variables=variables):
                    named = next((v.name for v in variables if v.secret), None)
                    if named is not None:
                        return named
                case AgentLogin(api_key=ApiKeyHint(variable=str() as variable)):
                    return variable
                case _:
                    pass
        return key_variable(self.agent_name, self.agent_argv)

    # -- logging in ----------------------------------------------------------------------------------

    async def log_in(self, attempt: LoginAttempt) -> LoginOutcome:
        """Ask until a method works or the user gives up (the list is offered again after each failure).

        Ctrl-C (`stop_login`) ends it at any dialog or request: `LoginCancelled(stopped=True)`.
        """
        try:
            return await self._log_in(attempt)
        except LoginStopped:
            return LoginCancelled(stopped=True)

    async def _log_in(self, attempt: LoginAttempt) -> LoginOutcome:
        failure: str | None = None
        key_entry = KeyEntry(variable_named_in(attempt.reason) or self._key_variable(attempt.methods))
        while True:
            request = LoginRequest(self.agent_name, attempt.reason, attempt.methods, key_entry, failure)
            choice = await self._withdrawable(self.asker.choose_login(request))
            failure = None
            match choice:
                case None:
                    return LoginCancelled()
                case AgentLogin(api_key=ApiKeyHint(variable=variable)):
                    # the agent needs a key `authenticate` cannot carry: set its variable, restart, then log in
                    wanted = (LoginVariable(variable),) if variable is not None else ()
                    values = await self._ask_values(SecretRequest(choice.name, wanted, suggested=variable))
                    if values is None:
                        continue
                    return RestartNeeded(f"{_names(values)} set for the agent; restarting it", values, choice.method_id)
                case AgentLogin():
                    try:
                        failure = await self.authenticate(attempt, choice.method_id, choice.name)
                    except LoginInterrupted as exc:
                        return LoginCancelled(str(exc))
                    if failure is None:
                        return LoggedIn(f"logged in: {plain(choice.name)}")
                case TerminalLogin():
                    command = self.terminal_command(choice, attempt.base_env)
                    if isinstance(command, str):
                        failure = f"{plain(choice.name)}: {command}"
                    else:
                        if not await self._withdrawable(self.asker.confirm_terminal_login(command)):
                            continue
                        outcome = await self.asker.run_terminal_login(command)
                        if outcome.ok:
                            return RestartNeeded(f"logged in: {plain(choice.name)}; restarting the agent")
                        failure = f"{plain(choice.name)}: {outcome.describe()}"
                case EnvVarLogin():
                    values = await self._ask_values(SecretRequest(choice.name, choice.variables, link=choice.link))
                    if values is None:
                        continue
                    return RestartNeeded(f"{_names(values)} set for the agent; restarting it", values, choice.method_id)
                case KeyEntry():
                    values = await self._ask_values(SecretRequest("API key", suggested=choice.variable))
                    if values is None:
                        continue
                    return RestartNeeded(f"{_names(values)} set for the agent; restarting it", values)
                case UnsupportedLogin():
                    failure = f"{plain(choice.name)} cannot be used: {choice.why}"
                case _:
                    assert_never(choice)
            if failure is not None:
                attempt.note(f"login failed — {failure}", "warning")

    async def authenticate(self, attempt: LoginAttempt, method_id: str, name: str) -> str | None:
        """`authenticate` (v1) / `auth/login` (v2) with `method_id`; None on success, else why it failed.

        Raises `LoginStopped` when the user withdrew the request (`stop_login`), `LoginInterrupted` when the
        agent went away.
        """
        attempt.progress(f"logging in: {plain(name)}… · ^C cancel")
        try:
            # cancelling the step cancels the request too (`$/cancel_request`)
            await self._withdrawable(
                attempt.request(login_method_name(self.version), login_request(self.version, method_id))
            )
        except RpcError as exc:
            return f"{plain(name)}: {plain(exc.message) or 'refused'} ({exc.code})"
        finally:
            attempt.progress(None)
        return None

    async def _withdrawable(self, step: Awaitable[T]) -> T:
        """Await one login step Ctrl-C may withdraw (`stop_login`): the agent's login request or a login dialog.

        Raises `LoginStopped` when it was withdrawn; a cancel from outside (the app quits) stays a cancel.
        """
        future = asyncio.ensure_future(step)
        self._step, self._stopping = future, False
        try:
            return await future
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._stopping and future.cancelled() and (task is None or not task.cancelling()):
                raise LoginStopped() from None
            raise
        finally:
            self._step, self._stopping = None, False

    @property
    def request_pending(self) -> bool:
        """Is a login step in flight (a request awaiting the agent's answer, or a login dialog) for Ctrl-C to withdraw?"""
        return self._step is not None and not self._step.done()

    def stop_login(self) -> bool:
        """Withdraw the login step in flight (the user pressed Ctrl-C); True when there was one.

        A request gets `$/cancel_request` (both versions' schemas define it; docs/protocol.md §1.4) and the
        agent's late answer is dropped; a dialog closes. The step then raises `LoginStopped`.
        """
        if not self.request_pending:
            return False
        assert self._step is not None
        self._stopping = True
        self._step.cancel()
        return True

    async def log_out(self, request: AgentRequest, raw_methods: object) -> str | None:
        """Send the logout request this agent accepts; the method sent, or None when none may be sent.

        Raises `RpcError` when the agent refuses and `LoginInterrupted` when it is gone.
        """
        method = self.logout_method(raw_methods)
        if method is not None:
            await request(method, LogoutRequest())
        return method

    async def _ask_values(self, request: SecretRequest) -> dict[str, str] | None:
        """Masked values, checked and registered as secrets the moment they exist."""
        values = await self._withdrawable(self.asker.ask_secrets(request))
        if values is None:
            return None
        clean: dict[str, str] = {}
        for name, value in values.items():
            value = value.strip()
            secrets.register(value)
            if valid_env_name(name) and value and "\x00" not in value:
                clean[name] = value
        return clean or None


def _names(values: Mapping[str, str]) -> str:
    return ", ".join(sorted(values))
