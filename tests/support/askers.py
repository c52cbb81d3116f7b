"""What scripted users say to the questions a test does not ask about: no to forms and links."""

from __future__ import annotations

from acp_tui.services.elicitation import (
    Cancelled,
    FormOutcome,
    FormQuestion,
    RefusedElicitation,
    UrlOutcome,
    UrlQuestion,
)


class NoElicitation:
    """A scripted user's answers to the agent's forms and links: dismissed (a test that wants more says so)."""

    async def ask_form(self, question: FormQuestion) -> FormOutcome:
        return Cancelled("the scripted user answers no forms")

    async def ask_url(self, question: UrlQuestion) -> UrlOutcome:
        return Cancelled("the scripted user opens no links")

    def elicitation_refused(self, refusal: RefusedElicitation) -> None:
        pass
