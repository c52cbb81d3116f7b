"""The Ctrl-C policy, decided without a terminal."""

from __future__ import annotations

from acp_tui.ui.chat.interrupt import FORCE_STOP_AFTER, QUIT_WINDOW, Interrupt, decide_interrupt


def decide(**kw: object) -> Interrupt:
    base: dict[str, object] = dict(
        now=100.0, busy=False, cancel_sent_at=None, prompt_text="", has_selection=False, quit_armed_at=None
    )
    base.update(kw)
    return decide_interrupt(**base)  # type: ignore[arg-type]


def test_while_busy_the_first_press_cancels_even_with_text_or_selection() -> None:
    assert decide(busy=True, prompt_text="draft", has_selection=True) is Interrupt.CANCEL


def test_a_second_press_stops_the_agent_only_after_the_grace_period() -> None:
    assert decide(busy=True, cancel_sent_at=99.0) is Interrupt.WAIT
    assert decide(busy=True, cancel_sent_at=100.0 - FORCE_STOP_AFTER) is Interrupt.FORCE_STOP


def test_idle_press_copies_then_clears_then_arms_quit() -> None:
    assert decide(has_selection=True, prompt_text="x") is Interrupt.COPY
    assert decide(prompt_text="x") is Interrupt.CLEAR
    assert decide() is Interrupt.ARM_QUIT
    assert decide(quit_armed_at=100.0 - QUIT_WINDOW + 0.1) is Interrupt.QUIT
    assert decide(quit_armed_at=100.0 - QUIT_WINDOW - 0.1) is Interrupt.ARM_QUIT
