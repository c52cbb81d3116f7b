"""What `AgentSession` raises when a session cannot be set up or used: one family, each message fit for the user
(its parts, such as `OtherSessions`, raise the same)."""

from __future__ import annotations

from typing import Any


class SessionError(Exception):
    """The session could not be set up or used; the message is fit for the user."""


class SessionRefused(SessionError):
    """The agent answered a setup request with an error."""


class HandshakeTimeout(SessionError):
    """`initialize` or `session/new` got no answer in time."""


class AuthRequired(SessionError):
    """The agent requires authentication (-32000); `auth_methods` are those it offered."""

    def __init__(self, message: str, auth_methods: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.auth_methods = auth_methods


__all__ = ["AuthRequired", "HandshakeTimeout", "SessionError", "SessionRefused"]
