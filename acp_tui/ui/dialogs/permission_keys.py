"""Which key picks which permission option, and how an option kind looks.

Kept apart from the dialog so the mapping is one table: `a`/`A`/`r`/`R` pick the first option of
kind allow_once / allow_always / reject_once / reject_always; `1`-`9` pick options by position,
whatever their kind (option kinds are an open enum, so an unknown kind is still reachable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from acp_tui.protocol.methods import PermissionOption

__all__ = [
    "KIND_KEYS",
    "KIND_VARIANTS",
    "OptionVariant",
    "MAX_NUMBERED",
    "first_of_kind",
    "option_for_kind_key",
    "option_for_number",
    "kind_variant",
    "key_for_option",
]

#: Letter key -> the option kind it picks (the first option of that kind).
KIND_KEYS: Final[dict[str, str]] = {
    "a": "allow_once",
    "A": "allow_always",
    "r": "reject_once",
    "R": "reject_always",
}

#: The Button variants an option can get.
OptionVariant = Literal["default", "success", "error"]

#: Option kind -> Button variant (colour from the theme: success / error); others look default.
KIND_VARIANTS: Final[dict[str, OptionVariant]] = {
    "allow_once": "success",
    "allow_always": "success",
    "reject_once": "error",
    "reject_always": "error",
}

#: Options beyond this position have no number key (still reachable by arrows + Enter).
MAX_NUMBERED: Final = 9


def first_of_kind(options: Sequence[PermissionOption], kind: str) -> PermissionOption | None:
    """The first option of `kind`, or None when the agent did not offer one."""
    for option in options:
        if option.kind == kind:
            return option
    return None


def option_for_kind_key(options: Sequence[PermissionOption], key: str) -> PermissionOption | None:
    """The option a letter key (`a`, `A`, `r`, `R`) picks, or None."""
    kind = KIND_KEYS.get(key)
    return None if kind is None else first_of_kind(options, kind)


def option_for_number(options: Sequence[PermissionOption], number: int) -> PermissionOption | None:
    """The option at 1-based position `number` (1-9), or None."""
    if 1 <= number <= min(len(options), MAX_NUMBERED):
        return options[number - 1]
    return None


def kind_variant(kind: str) -> OptionVariant:
    """The Button variant of an option kind; unknown kinds get "default"."""
    return KIND_VARIANTS.get(kind, "default")


def key_for_option(options: Sequence[PermissionOption], index: int) -> str | None:
    """The letter key that picks `options[index]`, when it is the first of a lettered kind."""
    option = options[index]
    for key, kind in KIND_KEYS.items():
        if option.kind == kind and first_of_kind(options, kind) is option:
            return key
    return None
