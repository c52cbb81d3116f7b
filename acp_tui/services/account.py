"""The account service: follows what the agent says of its sign-in, so the UI can say who is signed in.

Two forms (session/account.py has the shapes), both connection-scoped:
- Claude's ACP adapter pushes `_auth/status_update {authStatus: {kind, label, detail?, account?}}` once per
  connection and again whenever it changes (marked by `agentCapabilities._meta.authStatus`); push only.
- The unstable v2 schema's `auth/status`: where the agent advertises `capabilities.auth.status`, we ask once
  after `initialize` (`{}`, answered `{state, accounts?}`), and take its `auth/status_update` pushes after.
  An error or no answer within `ASK_TIMEOUT` leaves the account unknown, with a problem said once.
Nothing is advertised. The decoded account goes to the model as `AccountReported`; an unreadable one too,
with its raw text, and the reducer says it once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler, ServiceNotificationHandler
from acp_tui.session.account import (
    AUTH_STATUS_METHOD,
    AUTH_STATUS_REQUEST,
    AUTH_STATUS_UPDATE,
    Account,
    decode_auth_state,
    decode_auth_status,
)
from acp_tui.session.local_events import AccountReported

#: how long the `auth/status` asked after `initialize` may take (it is never awaited by anything else)
ASK_TIMEOUT: Final = 15.0


def auth_status_offered(context: ServiceContext) -> bool:
    """v2 only, and only where `capabilities.auth.status` is an object (`{}` advertises it)."""
    auth = context.agent_capabilities.get("auth") if context.version == 2 else None
    return isinstance(auth, Mapping) and isinstance(auth.get("status"), Mapping)


class AccountService:
    """Turns the agent's sign-in reports into `AccountReported` for the current connection's model."""

    name = "account"

    def __init__(self) -> None:
        self._context: ServiceContext | None = None
        self._ask: asyncio.Task[None] | None = None
        #: the connection's `request` we asked `auth/status` on (bound again after a retried `session/new`:
        #: asked once per connection, never twice)
        self._asked_on: object = None

    def capabilities(self) -> Capabilities:
        return Capabilities()

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {}

    def notifications(self) -> Mapping[str, ServiceNotificationHandler]:
        return {
            AUTH_STATUS_METHOD: lambda params: self._report(params, decode_auth_status, AUTH_STATUS_METHOD),
            AUTH_STATUS_UPDATE: self._on_update,
        }

    def bind(self, context: ServiceContext) -> None:
        self._context = context
        if context.request is not None and context.request != self._asked_on and auth_status_offered(context):
            self._asked_on = context.request
            self._ask = asyncio.get_running_loop().create_task(self._ask_status(context))

    def turn_cancelled(self) -> None:
        """Nothing is ever open."""

    async def close(self) -> None:
        if self._ask is not None and not self._ask.done():
            self._ask.cancel()
            await asyncio.gather(self._ask, return_exceptions=True)

    async def _ask_status(self, context: ServiceContext) -> None:
        assert context.request is not None
        try:
            raw = await asyncio.wait_for(context.request(AUTH_STATUS_REQUEST, {}), ASK_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - an error answer, no answer in time, a closed connection: still unknown
            if not context.connection_closed():
                context.apply(AccountReported(None, f"no answer: {exc!r}"[:500], AUTH_STATUS_REQUEST))
            return
        self._report(raw, decode_auth_state, AUTH_STATUS_REQUEST)

    def _on_update(self, params: msgspec.Raw) -> None:
        context = self._context
        if context is not None and auth_status_offered(context):  # pushed only where advertised
            self._report(params, decode_auth_state, AUTH_STATUS_UPDATE)

    def _report(self, params: msgspec.Raw, decode: Callable[[object], Account | None], method: str) -> None:
        context = self._context
        if context is None:
            return  # before `initialize` was answered: the next push says it again
        raw = bytes(params)
        try:
            decoded: object = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            decoded = None
        account = decode(decoded)
        detail = "" if account is not None else raw[:500].decode("utf-8", "replace")
        context.apply(AccountReported(account, detail, method))


__all__ = ["ASK_TIMEOUT", "AccountService", "auth_status_offered"]
