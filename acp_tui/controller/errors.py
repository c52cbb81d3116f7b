"""The one error a front end catches from the controller.

Below it, three families say why something failed: the agent layer's `SessionError` (a session that cannot be
set up or used), a request the agent refused (`RpcError`) and an agent that went away meanwhile
(`ConnectionClosed`). The controller's intents that a screen awaits (stop a tool call or a terminal, change a
setting, list, delete or export sessions) raise each of them as a `ControllerError` whose `str()` is the one
line to show, so the UI imports no error type from the layers under the controller and a new failure below
cannot slip past its `except`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from acp_tui.agent.connection import ConnectionClosed
from acp_tui.agent.session_errors import SessionError
from acp_tui.protocol.jsonrpc import RpcError

#: what the layers under the controller raise when one of its intents fails
BELOW = (SessionError, RpcError, ConnectionClosed)


class ControllerError(Exception):
    """An intent the controller could not carry out; `str()` is the one line to show the user."""


@contextlib.contextmanager
def as_controller_error(prefix: str = "") -> Iterator[None]:
    """Raise what fails below as a `ControllerError`: `prefix` and the reason (a refused request's message with
    its code), the original kept as its cause for the log."""
    try:
        yield
    except BELOW as exc:
        raise ControllerError(f"{prefix}{exc}") from exc


__all__ = ["BELOW", "ControllerError", "as_controller_error"]
