"""What every mail about a game shows: its name and kind, the reader's handle, the round and
its deadline in the reader's time zone, the seats the computer plays."""

from __future__ import annotations

from typing import Any

from adjudicator.games import game_title, kind_of
from adjudicator.notify.times import local_time
from adjudicator.service.settings import settings_of
from adjudicator.storage.models import Game, Round, Seat


def base_context(game: Game, seat: Seat | None, round_: Round | None) -> dict[str, Any]:
    zone = (seat.time_zone if seat else None) or game.time_zone
    deadline = round_.deadline if round_ else None
    return {
        "game": game.name,
        "kind": game.kind,
        "game_title": game_title(game.kind),
        "handle": seat.handle if seat else None,
        "round": round_.number if round_ else None,
        "round_word": kind_of(game.kind).round_word,
        "deadline": local_time(deadline, zone),
        "time_zone": zone,
        "finished": game.status == "finished",
        # Played in turns: a move is applied at once, so no mail may speak of changing orders.
        "sequential": kind_of(game.kind).rules.sequential,
        # The seats the computer plays (docs/stand-ins.md): every mail of the game says so.
        "computer_seats": list(settings_of(game).stand_ins),
    }
