"""The game record offered for download: docs/record-format.md, built from the reported rounds.

Each round holds the orders that were in force, in seat order, exactly as stored (the canonical
text the game wrote back to the player). ``adjudicate replay`` of the file gives the same rounds.
One thing a record cannot hold is a sequential game's forfeit (a round with no move: the format
wants exactly one), so such a last round is told in a comment instead.
"""

from __future__ import annotations

from adjudicator.core.record import OrderLine, Record, RecordRound, format_record
from adjudicator.core.text import counted
from adjudicator.readmodel.model import GameView, ReportedRound


def _record_round(game: GameView, round_: ReportedRound) -> RecordRound:
    orders = tuple(
        OrderLine(line=0, player=player.handle, text=text)
        for player in game.players
        for text in round_.orders.get(player.handle, ())
    )
    return RecordRound(number=round_.number, line=0, orders=orders)


def game_record(game: GameView) -> str:
    """The record of ``game`` so far, with a comment naming the game at the top."""
    header = Record(
        game=game.kind,
        players=tuple(p.handle for p in game.players),
        options=dict(game.options),
        setup=game.setup,
    )
    rounds = [_record_round(game, r) for r in game.rounds]
    forfeit = None
    if game.sequential and rounds and not rounds[-1].orders:
        forfeit = game.rounds[-1]
        rounds = rounds[:-1]
    state = (
        "finished"
        if game.status == "finished"
        else f"{counted(len(game.rounds), 'round')} reported"
    )
    text = f"# Game {game.name} ({state}): adjudicate replay reads this file.\n"
    text += format_record(header, orders=rounds)
    if forfeit is not None:
        mover = forfeit.report.get("player", "the player to move")
        text += (
            f"\n# round {forfeit.number}: {mover} made no move in time and forfeited the game;\n"
            "# a record holds moves only, so the replay stops before this round.\n"
        )
    return text
