"""A tournament's game master by mail (docs/tournaments.md): ``WITHDRAW handle`` and
``REPLACE handle WITH address`` in a mail to the tournament's game master's reply address
(``security.tournament_gm_reply_address``, the Reply-To of every tournament mail he gets).

That address is the proof, as a game's game master's reply address is for the game
(``gm_mail.py``): the From header proves nothing. Each command calls what the command line
calls (``tournaments.withdraw``, ``tournaments.replace_player``) in a savepoint of its own, so
that one that fails changes nothing and the others still run; the players are told there. The
game master is answered at his registered address, line by line, with the reply address
again. A game's commands (PAUSE, EXTEND...) are refused here with where to send them: each
game of the tournament mails its game master with its own reply address.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.mail.commands import Command, CommandProblem, ReplacePlayer, Withdraw
from adjudicator.service import ServiceError
from adjudicator.service.handling import AnswerPart, SectionHandling
from adjudicator.service.tournament_news import gm_reply_to
from adjudicator.service.tournaments import replace_player, withdraw
from adjudicator.storage.tournaments import Tournament


def run_tournament_commands(
    handling: SectionHandling,
    tournament: Tournament,
    commands: Sequence[Command],
    problems: Sequence[CommandProblem],
) -> bool:
    """Run a tournament game master's commands of one section (the mail proved him); True
    when every one was done."""
    done = [_run(handling, tournament, command) for command in commands]
    done += [
        {"line": p.line.number, "text": p.line.text.strip(), "error": p.message} for p in problems
    ]
    done.sort(key=lambda item: int(item["line"]))
    assert tournament.gm_address is not None  # its reply address proved him
    handling.answer.add(
        tournament.gm_address,
        AnswerPart(
            "tournament_gm",
            {"tournament": tournament.name, "done": done},
            reply_to=gm_reply_to(handling.ctx, tournament),
            proven=True,
        ),
    )
    failed = sum(1 for item in done if item.get("error"))
    handling.notes.append(
        f"tournament game master: {len(done) - failed} command(s) done, {failed} refused"
    )
    return failed == 0


def _run(handling: SectionHandling, tournament: Tournament, command: Command) -> dict[str, Any]:
    line = getattr(command, "line")  # noqa: B009 - every game master's command has its line
    item: dict[str, Any] = {"line": line.number, "text": line.text.strip(), "error": None}
    session, ctx, now = handling.session, handling.ctx, handling.now
    try:
        with session.begin_nested():
            if isinstance(command, Withdraw):
                games = withdraw(session, tournament, command.handle, ctx=ctx, now=now)
                item |= {"command": "withdraw", "handle": command.handle, "games": games}
            elif isinstance(command, ReplacePlayer):
                handed = replace_player(
                    session, tournament, command.handle, command.address, ctx=ctx, now=now
                )
                item |= {
                    "command": "replace",
                    "handle": command.handle,
                    "address": command.address,
                    "games": [g.name for g in handed],
                }
            else:
                word = line.text.split()[0].upper()
                raise ServiceError(
                    f"{word} is a game's command, and this mail went to the tournament's "
                    "address: reply to a mail of that game (each game of the tournament mails "
                    "you as its game master)"
                )
    except ServiceError as error:
        item["error"] = str(error)
    return item
