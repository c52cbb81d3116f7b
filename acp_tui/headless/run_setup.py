"""What print mode sets in the session before the prompt: the options asked for, and a mode that asks.

`--mode`, `--model` and `--set OPTION=VALUE` name session config options (docs/protocol.md §10.4) for one
run; each is checked against what the agent offers before anything is changed (an unknown option or value is
a usage error that lists the values). Then the mode: under `--approve never` or `reads` the policy answers
only what the agent asks, so a mode that acts without asking (Claude's default "Auto", "Accept edits", a
bypass; `session/modes.py` reads a mode's words) would make the policy void. Unless `--mode` names one, the
run goes on in a mode that asks, else one that only reads or plans; where every mode acts unasked, it does
not run (`EXIT_NO_ASKING_MODE`). Pure: the options in, the steps and the lines to say out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from acp_tui.protocol.v2 import SessionConfigBoolean, SessionConfigOption, SessionConfigSelect
from acp_tui.sanitize import plain
from acp_tui.session.modes import PermissionClass, mode_option, permission_class, value_name

#: the usage error's code (acp_tui/cli.py's EXIT_USAGE)
EXIT_USAGE = 2
#: every mode the agent offers acts without asking, and the policy says nothing may change unasked
EXIT_NO_ASKING_MODE = 9
#: at most this many of an option's values are listed in an error (an agent's list is untrusted)
LISTED_VALUES = 40
#: an agent-supplied name in a line is cut to this many characters
NAME_LIMIT = 60

_TRUE = frozenset({"true", "on", "yes", "1"})
_FALSE = frozenset({"false", "off", "no", "0"})
#: the order a replacement mode is picked in: one that asks, then one that changes nothing
_PREFERRED: tuple[PermissionClass, ...] = ("asks", "read_only", "unknown")


class SetupError(Exception):
    """The run cannot go on as asked: `str()` is the line to say, `code` the exit status."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class SetupRequest:
    """What the command line asked the session to be (`--mode`, `--model`, `--set`), as typed."""

    mode: str | None = None
    model: str | None = None
    sets: tuple[tuple[str, str], ...] = ()
    #: the policy needs a mode that asks (`--approve never` or `reads`)
    needs_asking: bool = True


@dataclass(frozen=True, slots=True)
class Step:
    """One option to set: `flag` is how the user asked for it (`--model sonnet`), or "" for the policy's own."""

    config_id: str
    value: str | bool
    flag: str


def _short(text: str) -> str:
    text = plain(text)
    return text if len(text) <= NAME_LIMIT else text[: NAME_LIMIT - 1] + "…"


def option_label(option: SessionConfigOption) -> str:
    return _short(option.config_id)


def choice_label(option: SessionConfigSelect, value: str) -> str:
    """`Manual (default)`, or `default` where the name says no more than the value."""
    name = value_name(option, value)
    return _short(value) if name == value else f"{_short(name)} ({_short(value)})"


def _typed_label(option: SessionConfigSelect, value: str) -> str:
    """`default (Manual)`: what to type first, then the agent's name for it."""
    name = value_name(option, value)
    return _short(value) if name == value else f"{_short(value)} ({_short(name)})"


def values_text(option: SessionConfigOption) -> str:
    """The values an option takes, for an error: at most `LISTED_VALUES`, then how many more."""
    if isinstance(option, SessionConfigBoolean):
        return "true, false"
    if not isinstance(option, SessionConfigSelect):
        return "none this client can set"
    choices = option.all_options()
    shown = ", ".join(_typed_label(option, choice.value) for choice in choices[:LISTED_VALUES])
    more = len(choices) - LISTED_VALUES
    return f"{shown}, … {more} more" if more > 0 else shown


def _by_category(options: Sequence[SessionConfigOption], category: str) -> SessionConfigOption | None:
    if category == "mode":
        return mode_option(options)
    for option in options:
        if isinstance(option, (SessionConfigSelect, SessionConfigBoolean)) and option.category == category:
            return option
    return next((o for o in options if o.config_id == category), None)


def _find_option(options: Sequence[SessionConfigOption], name: str) -> SessionConfigOption:
    """The option `--set NAME=…` names: its id, else the one option whose id or name matches ignoring case."""
    exact = next((o for o in options if o.config_id == name), None)
    if exact is not None:
        return exact
    folded = name.casefold()
    matches = [o for o in options if folded in (o.config_id.casefold(), str(getattr(o, "name", "")).casefold())]
    if len(matches) == 1:
        return matches[0]
    offered = ", ".join(option_label(o) for o in options[:LISTED_VALUES]) or "none"
    raise SetupError(f"the agent has no session option {_short(name)!r} (it offers: {offered})")


def _value(option: SessionConfigOption, typed: str, flag: str) -> str | bool:
    """The value of `option` that `typed` names: a select's value, else its one value whose name matches."""
    if isinstance(option, SessionConfigBoolean):
        word = typed.casefold()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
    elif isinstance(option, SessionConfigSelect):
        choices = option.all_options()
        if any(choice.value == typed for choice in choices):
            return typed
        folded = typed.casefold()
        matches = [c.value for c in choices if folded in (c.value.casefold(), (c.name or "").casefold())]
        if len(set(matches)) == 1:
            return matches[0]
    raise SetupError(
        f"{flag}: {_short(typed)!r} is not a value of {option_label(option)} (choose from: {values_text(option)})"
    )


def requested_steps(options: Sequence[SessionConfigOption], request: SetupRequest) -> list[Step]:
    """The options asked for besides the mode, in order (`--set`s, then `--model`), each checked against
    `options`; the mode asked for (`--mode`, or a `--set` of the mode option) is checked too but comes later
    (`mode_step`), once the others may have changed the modes on offer. Raises `SetupError`."""
    steps: list[Step] = []
    mode = mode_option(options)
    for name, typed in request.sets:
        option = _find_option(options, name)
        flag = f"--set {_short(name)}={_short(typed)}"
        value = _value(option, typed, flag)
        if mode is not None and option.config_id == mode.config_id:
            if request.mode is not None and request.mode != typed:
                raise SetupError(f"{flag} and --mode {_short(request.mode)} name two modes: name one")
            continue
        steps.append(Step(option.config_id, value, flag))
    if request.model is not None:
        model = _by_category(options, "model")
        if model is None:
            raise SetupError("--model: the agent offers no choice of model in this session")
        flag = f"--model {_short(request.model)}"
        steps.append(Step(model.config_id, _value(model, request.model, flag), flag))
    _named_mode(options, request)  # a mode that is not there is said before anything is changed
    seen: dict[str, str | bool] = {}
    for step in steps:
        if seen.setdefault(step.config_id, step.value) != step.value:
            raise SetupError(f"{step.flag}: {_short(step.config_id)} is given two values: give one")
    return steps


def _named_mode(options: Sequence[SessionConfigOption], request: SetupRequest) -> Step | None:
    """The mode the user named (`--mode`, or `--set` of the mode option), checked; None when none was."""
    mode = mode_option(options)
    typed = request.mode
    flag = f"--mode {_short(typed)}" if typed is not None else ""
    if typed is None and mode is not None:
        for name, value in request.sets:
            if _find_option(options, name).config_id == mode.config_id:
                typed, flag = value, f"--set {_short(name)}={_short(value)}"
    if typed is None:
        return None
    if mode is None:
        raise SetupError(f"{flag}: the agent offers no modes in this session")
    return Step(mode.config_id, _value(mode, typed, flag), flag)


@dataclass(frozen=True, slots=True)
class ModeChoice:
    """The mode the turn runs in: the step that sets it (None: it stays), and why, to say on stderr."""

    step: Step | None
    line: str | None


def mode_step(options: Sequence[SessionConfigOption], request: SetupRequest) -> ModeChoice:
    """The mode to run in (see the module's docstring). Raises `SetupError`: a named mode that is not offered
    (exit 2), or every mode acting unasked while the policy needs one that asks (`EXIT_NO_ASKING_MODE`)."""
    named = _named_mode(options, request)
    mode = mode_option(options)
    if named is not None and mode is not None:
        wanted = str(named.value)
        choice = next(c for c in mode.all_options() if c.value == wanted)
        line = None
        if request.needs_asking and permission_class(choice) == "unasked":
            line = (
                f"mode {choice_label(mode, wanted)} acts without asking: the --approve policy answers only what "
                f"it asks ({named.flag})"
            )
        return ModeChoice(None if mode.current_value == wanted else named, line)
    if mode is None or not request.needs_asking:
        return ModeChoice(None, None)
    classes = {choice.value: permission_class(choice) for choice in mode.all_options()}
    current = classes.get(mode.current_value, "unknown")
    if current in ("asks", "read_only"):
        return ModeChoice(None, None)
    for wanted in _PREFERRED:
        better = next((value for value, cls in classes.items() if cls == wanted), None)
        if better is None:
            continue
        if wanted == "unknown" and current == "unknown":
            return ModeChoice(None, None)  # nothing says another one asks more than this one
        reason = (
            "acts without asking"
            if current == "unasked"
            else "does not say that it asks"
            if mode.current_value in classes
            else "is not one it offers"
        )
        line = (
            f"the agent's mode {choice_label(mode, mode.current_value)} {reason}: running in "
            f"{choice_label(mode, better)} instead, so the --approve policy answers every change (--mode to "
            "choose another)"
        )
        return ModeChoice(Step(mode.config_id, better, ""), line)
    names = ", ".join(choice_label(mode, value) for value in list(classes)[:LISTED_VALUES])
    raise SetupError(
        f"every mode this agent offers acts without asking ({names}), so the --approve policy could not keep it "
        "from changing things: not run (name one with --mode to run in it anyway, or use --approve always)",
        EXIT_NO_ASKING_MODE,
    )


def acts_unasked(options: Sequence[SessionConfigOption]) -> str | None:
    """The current mode's label when its words say it acts without asking (None otherwise)."""
    mode = mode_option(options)
    if mode is None:
        return None
    choice = next((c for c in mode.all_options() if c.value == mode.current_value), None)
    if choice is None or permission_class(choice) != "unasked":
        return None
    return choice_label(mode, mode.current_value)


def current_label(options: Sequence[SessionConfigOption], category: str) -> str | None:
    """The current value of the option of `category` ("mode", "model") as a label, or None."""
    option = _by_category(options, category)
    if isinstance(option, SessionConfigSelect):
        return choice_label(option, option.current_value)
    if isinstance(option, SessionConfigBoolean):
        return "on" if option.current_value else "off"
    return None


def current_value(options: Sequence[SessionConfigOption], category: str) -> dict[str, str] | None:
    """The current value of the option of `category` as `{"id": value, "name": name}` (the JSON result's)."""
    option = _by_category(options, category)
    if not isinstance(option, SessionConfigSelect):
        return None
    return {"id": option.current_value, "name": value_name(option, option.current_value)}


def holds(options: Sequence[SessionConfigOption], step: Step) -> bool:
    """Does the session now have `step`'s value (the agent may answer a change without making it)?"""
    option = next((o for o in options if o.config_id == step.config_id), None)
    return isinstance(option, (SessionConfigSelect, SessionConfigBoolean)) and option.current_value == step.value


__all__ = [
    "EXIT_NO_ASKING_MODE",
    "ModeChoice",
    "SetupError",
    "SetupRequest",
    "Step",
    "acts_unasked",
    "current_label",
    "current_value",
    "holds",
    "mode_step",
    "requested_steps",
    "values_text",
]
