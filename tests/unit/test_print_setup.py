"""Print mode's session set-up and permission policy, as pure functions (issues 37 and 38).

What a mode's words say about consent (`session/modes.py`), the steps `--mode`/`--model`/`--set` become and
their errors, the mode a run under `--approve never` picks (headless/run_setup.py), and the option the policy
chooses, never a standing permission unless the policy is named (headless/policy.py). The end-to-end runs are in
tests/e2e/test_print_mode.py and tests/peers/test_print_claude.py.
"""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from acp_tui.headless.policy import Approve, PolicyAsker
from acp_tui.headless.run_setup import (
    EXIT_NO_ASKING_MODE,
    LISTED_VALUES,
    SetupError,
    SetupRequest,
    Step,
    acts_unasked,
    current_label,
    holds,
    mode_step,
    requested_steps,
    values_text,
)
from acp_tui.protocol.methods import PermissionOption, RequestPermissionRequest
from acp_tui.protocol.v2 import (
    SessionConfigBoolean,
    SessionConfigOption,
    SessionConfigSelect,
    SessionConfigSelectOption,
)
from acp_tui.services.permission import PermissionQuestion
from acp_tui.session.modes import permission_class

#: Claude's ACP adapter 0.101.0's modes, as its `buildAvailableModes` gives them (dist/session-mode.js)
CLAUDE_MODES = (
    ("default", "Manual", "Always ask before making changes"),
    ("acceptEdits", "Accept edits", "Automatically accept all file edits"),
    ("plan", "Plan", "Create a plan before making changes"),
    ("auto", "Auto", "Claude handles permission decisions"),
    ("bypassPermissions", "Bypass permissions", "Accepts all permissions"),
)


def select(
    config_id: str, current: str, choices: tuple[tuple[str, str, str], ...], category: str
) -> SessionConfigSelect:
    options = [SessionConfigSelectOption(value=v, name=n, description=d) for v, n, d in choices]
    return SessionConfigSelect(
        name=config_id.title(), current_value=current, options=options, config_id=config_id, category=category
    )


def claude(current: str = "auto") -> list[SessionConfigOption]:
    models = (("default", "Default (recommended)", ""), ("opus", "Opus", ""), ("haiku", "Haiku", ""))
    thinking = SessionConfigBoolean(name="Thinking", current_value=False, config_id="thinking")
    return [select("mode", current, CLAUDE_MODES, "mode"), select("model", "default", models, "model"), thinking]


def choice(value: str, name: str, description: str = "") -> SessionConfigSelectOption:
    return SessionConfigSelectOption(value=value, name=name, description=description)


# -- what a mode's words say ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "name", "description", "expected"),
    [
        *[
            (v, n, d, c)
            for (v, n, d), c in zip(CLAUDE_MODES, ["asks", "unasked", "read_only", "unasked", "unasked"], strict=True)
        ],
        ("yolo", "YOLO", "", "unasked"),  # Gemini CLI
        ("autoEdit", "Auto Edit", "", "unasked"),
        ("auto", "Default", "Codex can read and edit files in the workspace", "unasked"),  # codex-acp
        ("read-only", "Read Only", "", "read_only"),
        ("full-access", "Full Access", "", "unasked"),
        ("dontAsk", "Don't ask", "", "unasked"),
        ("ask", "Ask", "Answer questions, change nothing", "read_only"),  # the demo
        ("code", "Code", "Read and edit files (edits still ask permission)", "asks"),  # the demo
        ("architect", "Architect", "", "unknown"),
        ("x", "Careful", "Edits without asking", "unasked"),
    ],
)
def test_a_mode_is_classed_by_its_id_name_and_description(
    value: str, name: str, description: str, expected: str
) -> None:
    assert permission_class(choice(value, name, description)) == expected


# -- the mode a run is in ------------------------------------------------------------------------------


def test_claude_in_auto_runs_in_manual_under_never() -> None:
    chosen = mode_step(claude("auto"), SetupRequest())
    assert chosen.step == Step("mode", "default", "")
    assert chosen.line is not None and "Auto (auto) acts without asking" in chosen.line
    assert "Manual (default)" in chosen.line


@pytest.mark.parametrize("current", ["default", "plan"])
def test_a_mode_that_asks_or_only_plans_is_kept(current: str) -> None:
    assert mode_step(claude(current), SetupRequest()).step is None


def test_allowing_everything_leaves_the_agent_mode_alone() -> None:
    assert mode_step(claude("auto"), SetupRequest(needs_asking=False)).step is None


def test_a_read_only_mode_is_chosen_where_none_asks() -> None:
    codex = [
        select(
            "mode",
            "auto",
            (("read-only", "Read Only", ""), ("auto", "Default", ""), ("full-access", "Full Access", "")),
            "mode",
        )
    ]
    assert mode_step(codex, SetupRequest()).step == Step("mode", "read-only", "")


def test_every_mode_acting_unasked_stops_the_run_with_its_own_exit_code() -> None:
    modes = [select("mode", "auto", (("auto", "Auto", ""), ("bypassPermissions", "Bypass", "")), "mode")]
    with pytest.raises(SetupError) as raised:
        mode_step(modes, SetupRequest())
    assert raised.value.code == EXIT_NO_ASKING_MODE == 9
    assert "every mode this agent offers acts without asking" in str(raised.value)
    assert "auto (Auto)" not in str(raised.value) and "Auto (auto)" in str(raised.value)


def test_unknown_modes_are_kept_where_nothing_says_another_asks_more() -> None:
    modes = [select("mode", "code", (("architect", "Architect", ""), ("code", "Coder", "")), "mode")]
    assert mode_step(modes, SetupRequest()).step is None


def test_a_named_mode_wins_and_is_said_when_it_acts_unasked() -> None:
    chosen = mode_step(claude("default"), SetupRequest(mode="auto"))
    assert chosen.step == Step("mode", "auto", "--mode auto")
    assert chosen.line is not None and "acts without asking" in chosen.line
    by_name = mode_step(claude("auto"), SetupRequest(mode="manual"))  # a name, any case, names its value
    assert by_name.step == Step("mode", "default", "--mode manual") and by_name.line is None
    already = mode_step(claude("auto"), SetupRequest(mode="auto", needs_asking=False))
    assert already.step is None and already.line is None


def test_no_modes_offered_means_nothing_to_choose_unless_one_is_named() -> None:
    assert mode_step([], SetupRequest()).step is None
    with pytest.raises(SetupError, match="offers no modes"):
        mode_step([], SetupRequest(mode="plan"))


# -- --mode, --model, --set --------------------------------------------------------------------------


def test_model_and_set_become_steps_in_order() -> None:
    request = SetupRequest(model="Opus", sets=(("thinking", "on"), ("mode", "plan")))
    steps = requested_steps(claude(), request)
    assert steps == [Step("thinking", True, "--set thinking=on"), Step("model", "opus", "--model Opus")]
    assert mode_step(claude(), request).step == Step("mode", "plan", "--set mode=plan")


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        (SetupRequest(mode="fast"), "--mode fast: 'fast' is not a value of mode (choose from: default (Manual),"),
        (SetupRequest(model="gpt"), "--model gpt: 'gpt' is not a value of model (choose from: default (Default"),
        (SetupRequest(sets=(("effort", "high"),)), "no session option 'effort' (it offers: mode, model, thinking)"),
        (SetupRequest(sets=(("thinking", "maybe"),)), "(choose from: true, false)"),
        (SetupRequest(mode="plan", sets=(("mode", "default"),)), "name two modes"),
        (SetupRequest(model="opus", sets=(("model", "haiku"),)), "two values"),
    ],
)
def test_an_unknown_option_or_value_is_a_usage_error_listing_what_there_is(request_: SetupRequest, said: str) -> None:
    with pytest.raises(SetupError) as raised:
        requested_steps(claude(), request_)
    assert raised.value.code == 2
    assert said in str(raised.value)


def test_no_model_offered_is_said() -> None:
    with pytest.raises(SetupError, match="offers no choice of model"):
        requested_steps([], SetupRequest(model="opus"))


def test_the_values_listed_are_capped_and_agent_text_is_cleaned() -> None:
    many = tuple((f"m{i}", f"Model {i}", "") for i in range(LISTED_VALUES + 25))
    hostile = (("evil", "\x1b[31mRed\x1b[0m" + "x" * 500, ""),)
    text = values_text(select("model", "m0", many + hostile, "model"))
    assert text.endswith("… 26 more") and text.count("(Model") == LISTED_VALUES
    shown = values_text(select("model", "evil", hostile, "model"))
    assert "\x1b" not in shown and len(shown) < 200


def test_the_current_mode_and_model_as_said_and_whether_a_change_held() -> None:
    options = claude("default")
    assert current_label(options, "mode") == "Manual (default)"
    assert current_label(options, "model") == "Default (recommended) (default)"
    assert current_label([], "mode") is None
    assert holds(options, Step("mode", "default", "")) and not holds(options, Step("mode", "plan", ""))
    assert acts_unasked(claude("bypassPermissions")) == "Bypass permissions (bypassPermissions)"
    assert acts_unasked(options) is None


# -- the permission policy -----------------------------------------------------------------------------


def ask(approve: Approve, kinds: tuple[str, ...], tool_kind: str = "edit") -> tuple[str | None, list[str], list[str]]:
    """The option id `approve` chooses among options of `kinds`, and the lines it reported and warned."""
    reported: list[str] = []
    warned: list[str] = []
    options = [
        PermissionOption(option_id=f"id-{kind}", name=kind.replace("_", " ").title(), kind=kind) for kind in kinds
    ]
    params = {
        "sessionId": "s",
        "title": "Write hello.txt",
        "options": [msgspec.to_builtins(option) for option in options],
        "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t1", "kind": tool_kind}},
    }
    request = msgspec.convert(params, RequestPermissionRequest)
    asker = PolicyAsker(approve, reported.append, warn=warned.append)
    answer = asyncio.run(asker.ask_permission(PermissionQuestion(1, request)))
    return answer, reported, warned


ALL_KINDS = ("allow_once", "allow_always", "reject_once", "reject_always")
STANDING_ONLY = ("allow_always", "reject_once")


@pytest.mark.parametrize(
    ("approve", "kinds", "tool_kind", "chosen"),
    [
        ("never", ALL_KINDS, "edit", "id-reject_once"),
        ("reads", ALL_KINDS, "read", "id-allow_once"),
        ("reads", ALL_KINDS, "edit", "id-reject_once"),
        ("always", ALL_KINDS, "edit", "id-allow_once"),
        ("always-standing", ALL_KINDS, "edit", "id-allow_once"),  # once, where once is offered
        ("always", STANDING_ONLY, "edit", "id-reject_once"),
        ("reads", STANDING_ONLY, "read", "id-reject_once"),
        ("always-standing", STANDING_ONLY, "edit", "id-allow_always"),
        ("never", ("allow_once", "allow_always", "reject_always"), "edit", None),  # never a standing rejection either
        ("always", ("allow_always",), "edit", None),
    ],
)
def test_the_policy_never_grants_a_standing_permission_unless_named(
    approve: Approve, kinds: tuple[str, ...], tool_kind: str, chosen: str | None
) -> None:
    answer, reported, warned = ask(approve, kinds, tool_kind)
    assert answer == chosen
    said = "\n".join(reported)
    if chosen is not None:
        kind = chosen.removeprefix("id-")
        assert f"({kind})" in said and "Write hello.txt" in said, said  # the option chosen, named
    else:
        assert "permission cancelled" in said
    if approve in ("always", "reads") and kinds in (STANDING_ONLY, ("allow_always",)):
        assert warned and "standing permission" in warned[0] and "--approve always-standing" in warned[0]
    else:
        assert not warned
