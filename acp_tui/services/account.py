"""The account service: follows the agent's `_auth/status_update`, so the UI can say who is signed in.

Claude's ACP adapter pushes `{authStatus: {kind, label, detail?, account?}}` once per connection and again
whenever it changes (session/account.py has the shape). Push only: there is nothing to answer and nothing
to advertise (the agent marks it with `agentCapabilities._meta.authStatus`; a client that ignores the
method drops it). The decoded account goes to the model as `AccountReported`; an unreadable one too, with
its raw text, and the reducer says it once.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from acp_tui.services.base import Capabilities, ServiceContext, ServiceHandler, ServiceNotificationHandler
from acp_tui.session.account import AUTH_STATUS_METHOD, decode_auth_status
from acp_tui.session.local_events import AccountReported


class AccountService:
    """Turns `_auth/status_update` into `AccountReported` for the current connection's model."""

    name = "account"

    def __init__(self) -> None:
        self._context: ServiceContext | None = None

    def capabilities(self) -> Capabilities:
        return Capabilities()

    def methods(self) -> Mapping[str, ServiceHandler]:
        return {}

    def notifications(self) -> Mapping[str, ServiceNotificationHandler]:
        return {AUTH_STATUS_METHOD: self._on_status}

    def bind(self, context: ServiceContext) -> None:
        self._context = context

    def turn_cancelled(self) -> None:
        """Nothing is ever open."""

    async def close(self) -> None:
        """Nothing was started."""

    def _on_status(self, params: msgspec.Raw) -> None:
        context = self._context
        if context is None:
            return  # before `initialize` was answered: the next push says it again
        raw = bytes(params)
        try:
            decoded: object = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            decoded = None
        account = decode_auth_status(decoded)
        context.apply(AccountReported(account, "" if account is not None else raw[:500].decode("utf-8", "replace")))


__all__ = ["AccountService"]
