"""The standby list: addresses that want a seat in a game of some kind when one is offered
(``STANDBY giveaway``; ``offers.py`` mails them every offer of that kind).

Anybody may put his address on it, once he has confirmed with the code mailed back to that
address (so nobody puts somebody else on it); ``STANDBY OFF`` takes it off. A confirmed
address is mailed at once the seats of its kind on offer now.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, select

from adjudicator.base.security import standby_code
from adjudicator.games import GAME_NAMES, game_title
from adjudicator.mail.commands import Command, CommandProblem, Standby
from adjudicator.service import conversation, offers
from adjudicator.service.handling import SectionHandling
from adjudicator.storage import queries
from adjudicator.storage.models import Standby as StandbyEntry


def standby_addresses(session: Session, kind: str) -> list[str]:
    """The addresses waiting for a seat in a game of ``kind``, first come first."""
    return offers.standby_addresses(session, kind)


def standby(
    handling: SectionHandling, commands: Sequence[Command], _problems: Sequence[CommandProblem]
) -> bool:
    answered = conversation.answer_each(handling, Standby, commands, _standby_one)
    handling.notes.append("standby answered")
    return answered


def _standby_one(handling: SectionHandling, command: Standby) -> str | None:
    session, address = handling.session, handling.sender.strip().lower()
    kinds = ", ".join(GAME_NAMES)
    if command.stop:
        gone = [
            entry
            for entry in session.exec(select(StandbyEntry).where(StandbyEntry.address == address))
            if command.kind is None or entry.kind == command.kind
        ]
        for entry in gone:
            session.delete(entry)
        handling.answer_sender(
            "standby", {"step": "stopped", "kinds": sorted(e.kind for e in gone)}, known=bool(gone)
        )
        return None
    if command.kind is None:
        return f"name the kind of game: STANDBY giveaway (the kinds: {kinds})"
    if command.kind not in GAME_NAMES:
        return f"there is no kind of game {command.kind!r} here; the kinds: {kinds}"
    context = {"kind": command.kind, "game_title": game_title(command.kind)}
    if command.kind in queries.standby_kinds(session, address):
        handling.answer_sender("standby", context | {"step": "already"})
        return None
    code = standby_code(handling.ctx.receipt_key, command.kind, address)
    sure, wrong = conversation.confirmed(handling, command, code, context, named=command.kind)
    if not sure:
        return wrong
    session.add(StandbyEntry(kind=command.kind, address=address, created_at=handling.now))
    on_offer = offers.offers_for_newcomer(
        session, key=handling.ctx.receipt_key, kind=command.kind, address=address
    )
    handling.answer_sender("standby", context | {"step": "started", "offers": on_offer})
    handling.notes.append(f"{address} on standby for {command.kind}")
    return None
