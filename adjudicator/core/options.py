"""Reading game options (``option: name=value``) with errors that name the option."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.core.errors import SetupError
from adjudicator.core.text import did_you_mean


def resolve_options(given: Mapping[str, str], defaults: Mapping[str, str]) -> dict[str, str]:
    """Merge ``given`` over ``defaults``, refusing options the game does not know."""
    unknown = [name for name in given if name not in defaults]
    if unknown:
        name = unknown[0]
        hint = did_you_mean(name, defaults)
        known = ", ".join(sorted(defaults)) or "none"
        raise SetupError(
            f"unknown option {name!r} (this game knows: {known})"
            + (f"; did you mean {hint!r}?" if hint else "")
        )
    return {**defaults, **given}


def choice_option(options: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    value = options[name].strip().lower()
    if value not in choices:
        raise SetupError(f"option {name}={options[name]!r} must be one of {', '.join(choices)}")
    return value


def int_option(options: Mapping[str, str], name: str, *, minimum: int = 0) -> int:
    raw = options[name].strip()
    try:
        value = int(raw)
    except ValueError:
        raise SetupError(f"option {name}={raw!r} must be a whole number") from None
    if value < minimum:
        raise SetupError(f"option {name}={raw!r} must be at least {minimum}")
    return value
