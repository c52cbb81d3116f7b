"""Authentication on the wire (docs/protocol.md §2.4): the agent's `authMethods`, v1 `authenticate`/`logout`,
v2 `auth/login`/`auth/logout`.

The `initialize` result lists the methods the agent offers; `decode_auth_methods` turns that raw list
into one version-independent `AuthMethod` per entry, tolerantly:

* **agent** (v2 `type: "agent"`; v1 no `type`, or `"agent"`): the client calls `authenticate` (v1) /
  `auth/login` (v2) with the method id and the agent does the rest.
* **terminal** (`type: "terminal"`, `args`, `env`: a map in v1, a `[{name, value}]` list in v2): the
  client runs the configured agent program with `args` appended and `env` added, interactively; it is
  never passed to `authenticate`/`auth/login`.
* **env_var** (`type: "env_var"`, `vars: [{name, label?, optional?, secret?}]`, `link?`): a dialect real
  agents send although today's schemas no longer define it; the client asks for the variables and
  restarts the agent with them set.
* anything else, and a known type that is malformed, becomes `UnsupportedLogin` with its raw payload and
  the reason it cannot be used: listed, never offered. `_meta` hints are never required.
* one `_meta` hint is read: an agent method carrying `_meta["api-key"]` (Gemini CLI's "Gemini API key":
  `{"api-key": {"provider": "google"}}`) wants an API key, which `authenticate` alone never gives it. Its
  `ApiKeyHint` names the variable: one the hint spells out (`env`, `envVar`, `variable` or `name`), else
  the provider's documented one (`PROVIDER_KEY_VARIABLES`), else none (the user names it).

A terminal method whose program arguments or environment hold control or invisible characters is also
unsupported: the user must see exactly what would run before it runs; so is one whose program line is too
long to show (`MAX_TERMINAL_ARGS`, `MAX_TERMINAL_TEXT`): cutting it would change what runs.

The list is bounded where it is decoded (`bound_auth_methods`, applied to the `initialize` result), so
nothing downstream sees a flood (issue 21: 10,000 methods and a 1 MB name stalled start-up ~20 s):
at most `MAX_AUTH_METHODS` methods, then one row saying how many more were not shown; names cut at
`MAX_AUTH_NAME` characters and descriptions at `MAX_AUTH_DESCRIPTION`, each with a note that says so.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

import msgspec
from msgspec import UNSET

from acp_tui.protocol.common import Meta, Patch, WireStruct
from acp_tui.sanitize import cut, plain

__all__ = [
    "AUTHENTICATE",
    "LOGIN",
    "LOGOUT",
    "V1_LOGOUT",
    "MAX_AUTH_DESCRIPTION",
    "MAX_AUTH_METHODS",
    "MAX_AUTH_NAME",
    "MAX_TERMINAL_ARGS",
    "MAX_TERMINAL_TEXT",
    "MORE_METHODS",
    "bound_auth_methods",
    "AgentLogin",
    "ApiKeyHint",
    "AuthMethod",
    "AuthenticateRequest",
    "EnvVarLogin",
    "EnvVariable",
    "LoginAuthRequest",
    "LoginVariable",
    "LogoutRequest",
    "TerminalLogin",
    "UnsupportedLogin",
    "decode_auth_methods",
    "login_method_name",
    "login_request",
    "logout_method",
    "valid_env_name",
    "PROVIDER_KEY_VARIABLES",
]

#: v1 login request method (an agent method's id).
AUTHENTICATE = "authenticate"
#: v2 login request method.
LOGIN = "auth/login"
#: v2 logout request method (only when `authMethods` was non-empty).
LOGOUT = "auth/logout"
#: v1 logout request method (only when `agentCapabilities.auth.logout` is advertised).
V1_LOGOUT = "logout"

#: Login methods kept from `authMethods`; the rest become one "… N more methods not shown" row.
MAX_AUTH_METHODS = 50
#: A method's name is cut here (a name is a label; the rest is noted as cut).
MAX_AUTH_NAME = 200
#: A method's description is cut here.
MAX_AUTH_DESCRIPTION = 1_000
#: A terminal method with more program arguments or environment variables than this is not offered.
MAX_TERMINAL_ARGS = 64
#: ... nor one with an argument, variable name or value longer than this.
MAX_TERMINAL_TEXT = 4_096
#: The `type` of the row that stands for the methods past `MAX_AUTH_METHODS` (never offered).
MORE_METHODS = "acp-tui/more-methods"


def _meta() -> Any:
    return msgspec.field(default=UNSET, name="_meta")


# --- wire types -------------------------------------------------------------------------------------


class EnvVariable(WireStruct):
    """One environment variable (v2 schema `EnvVariable`)."""

    name: str
    value: str
    meta: Patch[Meta] = _meta()


class AuthMethodAgentV2(WireStruct):
    """v2 `AuthMethodAgent` (`type: "agent"`)."""

    method_id: str
    name: str
    description: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class AuthMethodTerminalV2(WireStruct):
    """v2 `AuthMethodTerminal` (`type: "terminal"`): `env` is a list of `{name, value}`."""

    method_id: str
    name: str
    description: Patch[str] = UNSET
    args: Patch[list[str]] = UNSET
    env: Patch[list[EnvVariable]] = UNSET
    meta: Patch[Meta] = _meta()


class AuthMethodAgentV1(WireStruct):
    """v1 `AuthMethodAgent` (no `type`, or `"agent"`)."""

    id: str
    name: str
    description: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class AuthMethodTerminalV1(WireStruct):
    """v1 `AuthMethodTerminal` (`type: "terminal"`): `env` is a map object."""

    id: str
    name: str
    description: Patch[str] = UNSET
    args: Patch[list[str]] = UNSET
    env: Patch[dict[str, str]] = UNSET
    meta: Patch[Meta] = _meta()


class AuthEnvVar(WireStruct):
    """One variable of an `env_var` method (dialect; not in today's schemas)."""

    name: str
    label: Patch[str] = UNSET
    optional: Patch[bool] = UNSET
    secret: Patch[bool] = UNSET
    meta: Patch[Meta] = _meta()


class AuthMethodEnvVar(WireStruct):
    """An `env_var` method (dialect): `id` (v1) or `methodId`, `vars`, an optional `link` to get a key."""

    name: str
    vars: list[AuthEnvVar]
    id: Patch[str] = UNSET
    method_id: Patch[str] = UNSET
    description: Patch[str] = UNSET
    link: Patch[str] = UNSET
    meta: Patch[Meta] = _meta()


class AuthenticateRequest(WireStruct):
    """v1 `authenticate` params."""

    method_id: str
    meta: Patch[Meta] = _meta()


class LoginAuthRequest(WireStruct):
    """v2 `auth/login` params."""

    method_id: str
    meta: Patch[Meta] = _meta()


class LogoutRequest(WireStruct):
    """v1 `logout` / v2 `auth/logout` params (nothing but `_meta`)."""

    meta: Patch[Meta] = _meta()


# --- what the client works with ---------------------------------------------------------------------


#: The key variable each provider's agents document (Gemini CLI: `GEMINI_API_KEY`, docs "Authentication").
PROVIDER_KEY_VARIABLES: dict[str, str] = {
    "google": "GEMINI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


class ApiKeyHint(msgspec.Struct, frozen=True):
    """An agent method's `_meta["api-key"]`: it needs an API key; `variable` is the one to set, if known."""

    variable: str | None = None
    provider: str | None = None


class AgentLogin(msgspec.Struct, frozen=True):
    """The agent logs the user in itself when asked with `authenticate` / `auth/login`; with `api_key`, it
    needs a key first (the client asks for the variable and restarts the agent with it)."""

    method_id: str
    name: str
    description: str | None = None
    api_key: ApiKeyHint | None = None


class TerminalLogin(msgspec.Struct, frozen=True):
    """The client runs the agent program with `args` appended and `env` added, in the real terminal."""

    method_id: str
    name: str
    description: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


class LoginVariable(msgspec.Struct, frozen=True):
    """A variable an `env_var` method needs; `secret` ones are typed into a masked field."""

    name: str
    label: str | None = None
    optional: bool = False
    secret: bool = True


class EnvVarLogin(msgspec.Struct, frozen=True):
    """The agent reads its key from environment variables: the client asks for them and restarts it."""

    method_id: str
    name: str
    description: str | None = None
    variables: tuple[LoginVariable, ...] = ()
    link: str | None = None


class UnsupportedLogin(msgspec.Struct, frozen=True):
    """A method this client cannot use (unknown `type`, or malformed): listed with `why`, never offered."""

    method_id: str | None
    name: str
    type: str
    why: str
    description: str | None = None
    raw: dict[str, Any] = msgspec.field(default_factory=dict)


AuthMethod: TypeAlias = AgentLogin | TerminalLogin | EnvVarLogin | UnsupportedLogin


#: A POSIX environment variable name (what a terminal or env_var method may set).
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def valid_env_name(name: str) -> bool:
    """Could `name` be set in a process environment (and shown as typed)?"""
    return _ENV_NAME.fullmatch(name) is not None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _shown_as_is(value: str) -> bool:
    """True when the dialog shows `value` exactly: no controls, line breaks or invisible characters."""
    return plain(value) == value


def _bound_entry(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    fixed = dict(item)
    for key, limit in (("name", MAX_AUTH_NAME), ("description", MAX_AUTH_DESCRIPTION)):
        value = fixed.get(key)
        if isinstance(value, str):
            fixed[key] = cut(value, limit, key)
    return fixed


def _is_more_row(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == MORE_METHODS


def bound_auth_methods(raw: list[Any]) -> list[Any]:
    """`raw` with at most `MAX_AUTH_METHODS` entries, names and descriptions cut, and one `MORE_METHODS`
    row counting the rest; a list already bounded comes back unchanged."""
    if len(raw) <= MAX_AUTH_METHODS + 1 and raw and _is_more_row(raw[-1]):
        return raw
    kept = [_bound_entry(item) for item in raw[:MAX_AUTH_METHODS]]
    more = len(raw) - MAX_AUTH_METHODS
    if more > 0:
        kept.append(
            {"type": MORE_METHODS, "name": f"… {more:,} more method{'s' if more != 1 else ''} not shown", "count": more}
        )
    return kept


def decode_auth_methods(raw: object, version: int) -> tuple[AuthMethod, ...]:
    """The `authMethods` of an `initialize` result, one `AuthMethod` per entry (never raises), bounded."""
    if not isinstance(raw, list):
        return ()
    return tuple(_decode_one(item, version) for item in bound_auth_methods(raw))


def _decode_one(item: object, version: int) -> AuthMethod:
    if not isinstance(item, dict):
        return UnsupportedLogin(None, "(unnamed)", "?", "it is not an object", raw={"value": item})
    raw: dict[str, Any] = item
    kind = raw.get("type")
    name = _text(raw.get("name")) or _text(raw.get("methodId")) or _text(raw.get("id")) or "(unnamed)"
    name = cut(name, MAX_AUTH_NAME, "name")  # an id standing in for the name is cut too
    method_id = _text(raw.get("methodId")) if version >= 2 else _text(raw.get("id"))
    method_id = method_id or _text(raw.get("methodId")) or _text(raw.get("id"))
    description = _text(raw.get("description"))
    if kind == MORE_METHODS:
        return UnsupportedLogin(
            None, name, MORE_METHODS, f"acp-tui lists the first {MAX_AUTH_METHODS} methods the agent offered"
        )
    if kind is None or kind == "agent":  # v1 says a missing type is an agent method; tolerated in v2 too
        return _agent(raw, version, name, method_id, description)
    if kind == "terminal":
        return _terminal(raw, version, name, method_id, description)
    if kind == "env_var":
        return _env_var(raw, name, method_id, description)
    kind_text = kind if isinstance(kind, str) else repr(kind)
    return UnsupportedLogin(
        method_id, name, kind_text, f"acp-tui does not know {plain(kind_text)!r} logins", description, raw
    )


def _convert(raw: dict[str, Any], *types: type[WireStruct]) -> WireStruct | str:
    """The first of `types` that `raw` converts to, else the first error (a malformed known variant)."""
    errors: list[str] = []
    for kind in types:
        try:
            return msgspec.convert(raw, kind)
        except msgspec.ValidationError as exc:
            errors.append(str(exc))
    return errors[0]


def _agent(raw: dict[str, Any], version: int, name: str, method_id: str | None, description: str | None) -> AuthMethod:
    order: tuple[type[WireStruct], ...] = (
        (AuthMethodAgentV2, AuthMethodAgentV1) if version >= 2 else (AuthMethodAgentV1, AuthMethodAgentV2)
    )
    decoded = _convert(raw, *order)
    match decoded:
        case AuthMethodAgentV2(method_id=wire_id) | AuthMethodAgentV1(id=wire_id):
            return AgentLogin(wire_id, name, description, _api_key_hint(raw.get("_meta")))
        case str() as error:
            return UnsupportedLogin(
                method_id, name, "agent", f"the agent sent it malformed ({error})", description, raw
            )
        case _:
            raise AssertionError(decoded)


def _api_key_hint(meta: object) -> ApiKeyHint | None:
    """`_meta["api-key"]` read tolerantly (any JSON value counts as "wants a key"); see the module docstring."""
    if not isinstance(meta, dict) or "api-key" not in meta:
        return None
    hint = meta["api-key"]
    if not isinstance(hint, dict):
        return ApiKeyHint()
    provider = _text(hint.get("provider"))
    for field_name in ("env", "envVar", "variable", "name"):
        named = hint.get(field_name)
        if isinstance(named, str) and valid_env_name(named):
            return ApiKeyHint(named, provider)
    known = PROVIDER_KEY_VARIABLES.get(provider.lower()) if provider is not None else None
    return ApiKeyHint(known, provider)


def _terminal(
    raw: dict[str, Any], version: int, name: str, method_id: str | None, description: str | None
) -> AuthMethod:
    order: tuple[type[WireStruct], ...] = (
        (AuthMethodTerminalV2, AuthMethodTerminalV1) if version >= 2 else (AuthMethodTerminalV1, AuthMethodTerminalV2)
    )
    decoded = _convert(raw, *order)
    args: list[str]
    env: list[tuple[str, str]]
    match decoded:
        case AuthMethodTerminalV2():
            wire_id = decoded.method_id
            args = decoded.args if isinstance(decoded.args, list) else []
            env = [(v.name, v.value) for v in decoded.env] if isinstance(decoded.env, list) else []
        case AuthMethodTerminalV1():
            wire_id = decoded.id
            args = decoded.args if isinstance(decoded.args, list) else []
            env = list(decoded.env.items()) if isinstance(decoded.env, dict) else []
        case str() as error:
            return UnsupportedLogin(
                method_id, name, "terminal", f"the agent sent it malformed ({error})", description, raw
            )
        case _:
            raise AssertionError(decoded)
    if (
        len(args) > MAX_TERMINAL_ARGS
        or len(env) > MAX_TERMINAL_ARGS
        or any(len(text) > MAX_TERMINAL_TEXT for text in (*args, *(part for pair in env for part in pair)))
    ):
        why = "its program line is too long to show in full"
        return UnsupportedLogin(wire_id, name, "terminal", why, description, raw)
    if not all(_shown_as_is(arg) and "\x00" not in arg for arg in args):
        why = "its program arguments hold control or invisible characters"
        return UnsupportedLogin(wire_id, name, "terminal", why, description, raw)
    if not all(valid_env_name(key) and _shown_as_is(value) for key, value in env):
        why = "its environment holds an invalid name or control characters"
        return UnsupportedLogin(wire_id, name, "terminal", why, description, raw)
    return TerminalLogin(wire_id, name, description, tuple(args), tuple(env))


def _env_var(raw: dict[str, Any], name: str, method_id: str | None, description: str | None) -> AuthMethod:
    decoded = _convert(raw, AuthMethodEnvVar)
    match decoded:
        case AuthMethodEnvVar():
            wire_id = decoded.id if isinstance(decoded.id, str) else decoded.method_id
            if not isinstance(wire_id, str):
                return UnsupportedLogin(None, name, "env_var", "it has no id", description, raw)
            if len(decoded.vars) > MAX_TERMINAL_ARGS or any(len(v.name) > MAX_TERMINAL_TEXT for v in decoded.vars):
                return UnsupportedLogin(wire_id, name, "env_var", "it asks for too many variables", description, raw)
            if not decoded.vars or not all(valid_env_name(v.name) for v in decoded.vars):
                return UnsupportedLogin(
                    wire_id, name, "env_var", "it names no valid environment variable", description, raw
                )
            variables = tuple(
                LoginVariable(
                    v.name,
                    cut(v.label, MAX_AUTH_NAME, "label") if isinstance(v.label, str) and v.label else None,
                    optional=v.optional is True,
                    secret=v.secret is not False,
                )
                for v in decoded.vars
            )
            link = decoded.link if isinstance(decoded.link, str) and decoded.link else None
            return EnvVarLogin(wire_id, name, description, variables, link)
        case str() as error:
            return UnsupportedLogin(
                method_id, name, "env_var", f"the agent sent it malformed ({error})", description, raw
            )
        case _:
            raise AssertionError(decoded)


def login_method_name(version: int) -> str:
    """The request that runs an agent method: v1 `authenticate`, v2 `auth/login`."""
    return LOGIN if version >= 2 else AUTHENTICATE


def login_request(version: int, method_id: str) -> AuthenticateRequest | LoginAuthRequest:
    """The params of `login_method_name(version)` for `method_id`."""
    return LoginAuthRequest(method_id=method_id) if version >= 2 else AuthenticateRequest(method_id=method_id)


def logout_method(version: int, auth_methods: object, agent_capabilities: object) -> str | None:
    """The logout request this agent accepts, or None (docs/protocol.md §2.4).

    v2: `auth/logout`, only when `authMethods` was non-empty. v1: `logout`, only when the agent advertised
    `agentCapabilities.auth.logout` (and listed methods: never call either with none listed).
    """
    if not isinstance(auth_methods, list) or not auth_methods:
        return None
    if version >= 2:
        return LOGOUT
    auth = agent_capabilities.get("auth") if isinstance(agent_capabilities, dict) else None
    logout = auth.get("logout") if isinstance(auth, dict) else None
    return V1_LOGOUT if isinstance(logout, dict) else None
