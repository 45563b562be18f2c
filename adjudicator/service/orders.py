"""Orders by mail: checked against the game's state, stored in canonical form with a receipt,
confirmed (or every bad line named). A player's own orders for a seat the computer plays take
the seat back from it. When the last orders of a round that closes early are in,
the round is noted complete and closed once the mail's batch commits (``closing.py``); in a
game played in turns the move is applied at once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from adjudicator.base.security import receipt
from adjudicator.mail.commands import Command, Orders
from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.closing import close_if_complete, mark_if_complete
from adjudicator.service.game_context import base_context
from adjudicator.service.handling import SeatedHandling, SectionHandling
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.rounds import open_round_of, previous_orders, takes_orders
from adjudicator.service.sign_up_state import not_started
from adjudicator.service.stand_ins import (
    answered_by_stand_ins,
    ended_by_own_move,
    stand_in_seats,
    take_back,
)
from adjudicator.storage import queries
from adjudicator.storage.db import aware
from adjudicator.storage.models import GameStatus, OrderSet, Round, RoundState

STALE_AFTER = timedelta(minutes=5)
"""How long before a round opened a mail may be dated and still count for it: a player's clock
may be a little slow."""


def _written_before(handling: SectionHandling, round_: Round) -> bool:
    """Whether the mail was written before this round opened, so for an earlier round: a mail
    resent, delayed or replayed after its round closed must not become the next round's orders.
    The Date field is what every mail client writes when the mail is sent (RFC 5322 3.6.1) and
    what a forwarded or resent copy keeps; a mail without one is not judged."""
    written = handling.mail.written_at
    return written is not None and written < round_.opened_at - STALE_AFTER


def take_orders(handling: SeatedHandling, commands: Sequence[Command]) -> bool:
    """Handle the section's :class:`Orders`; True when they were stored."""
    (orders,) = commands
    assert isinstance(orders, Orders)
    game, seat, session = handling.game, handling.seat, handling.session
    round_ = open_round_of(session, game)
    base = base_context(game, seat, round_)
    # In time is when the mail reached the service's mailbox, not when it was read: a service
    # down or waiting for its database across a deadline makes no one late.
    arrived = min(aware(handling.submission.received_at), handling.now)
    waiting = not_started(session, game)
    if waiting is not None:  # not late: early, and the answer says what the game waits for
        handling.reply_to_seat("late", {**base, "not_started": waiting})
        handling.notes.append(f"game {game.name} has not started yet")
        return False
    if round_ is None or not takes_orders(game, round_, arrived):
        handling.reply_to_seat("late", base)
        handling.notes.append(f"late for game {game.name}")
        return False
    if _written_before(handling, round_):
        handling.reply_to_seat(
            "stale",
            {
                **base,
                "written": local_time(handling.mail.written_at, base["time_zone"]),
                "opened": local_time(round_.opened_at, base["time_zone"]),
            },
        )
        handling.notes.append(f"written before round {round_.number} of game {game.name} opened")
        return False
    rules, state = rules_of(game), game_state(game)
    movers = rules.to_move(state)
    if seat.handle not in movers:
        turn = {"movers": list(movers), "sequential": rules.sequential}
        handling.reply_to_seat("not_your_turn", {**base, **turn})
        return False
    texts = [line.text for line in orders.lines]
    checked = rules.check(state, seat.handle, texts)
    context = {**base, "checked": checked, "lines": texts}
    if not checked.ok or not checked.orders:
        handling.reply_to_seat("rejection", context)
        handling.notes.append(f"problems in orders for game {game.name}")
        return False
    lines = [rules.format_order(order) for order in checked.orders]
    assert round_.id is not None
    assert seat.id is not None
    returned = _back_from_the_stand_in(handling, round_)
    previous = previous_orders(session, round_.id, seat.id)
    code = receipt(
        handling.ctx.receipt_key,
        game=game.name,
        round_number=round_.number,
        player=seat.handle,
        lines=lines,
    )
    session.add(
        OrderSet(
            round_id=round_.id,
            seat_id=seat.id,
            submission_id=handling.submission.id,
            lines=lines,
            receipt=code,
            created_at=handling.now,
        )
    )
    context |= {
        "stored": lines,
        # the player's own earlier orders: the stand-in's were withdrawn, and are not his
        "previous": previous.lines if previous else None,
        "receipt": code,
        "returned": returned,
    }
    if rules.sequential:
        # Closed first: in a game played in turns the move is applied at once, and its
        # confirmation says so (docs/rules/<game>.md: a round is one move).
        close_if_complete(session, round_.id, ctx=handling.ctx, now=handling.now)
        answer = queries.round_numbered(session, game.id, round_.number + 1)
        if answered_by_stand_ins(session, answer) and not returned:
            # The computer answered at once: the answer's result is the one mail for the
            # move, with its receipt (``round_result_mails``).
            handling.notes.append(f"move in game {game.name} answered by the computer")
            return True
        if ended_by_own_move(session, game, round_, seat) and not returned:
            # The game's last result is the one mail for the move that ended it, with its
            # receipt (``round_result_mails``).
            handling.notes.append(f"move in game {game.name} ended the game")
            return True
        context |= _turn_after_move(handling, round_)
    else:  # closed once this mail's transaction commits (closing.close_completed)
        context["completes_round"] = mark_if_complete(session, round_, now=handling.now)
    handling.reply_to_seat("confirmation", context, round_id=round_.id)
    return True


def _back_from_the_stand_in(handling: SeatedHandling, round_: Round) -> bool:
    """A player who sends his own orders for a seat the computer plays takes it back: from
    now on the rounds wait for him again, and the stand-in's orders for this round are
    withdrawn (``stand_ins.take_back``); the game master is told. True when he did."""
    game, seat, session = handling.game, handling.seat, handling.session
    if seat.handle not in stand_in_seats(game):
        return False
    take_back(session, game, seat, round_)
    queue_gm_notice(
        session,
        ctx=handling.ctx,
        game=game,
        notice="stand_in_returned",
        key=f"{game.id}:{seat.id}:returned:{round_.id}",
        now=handling.now,
        round_=round_,
        player=seat.handle,
    )
    return True


def _turn_after_move(handling: SeatedHandling, moved_in: Round) -> dict[str, Any]:
    """What a confirmation of a move in a game played in turns says beside the move: whether
    it was applied, and then whether it ended the game (and who won) or whose turn it is now
    and until when, in the mover's time zone."""
    game, seat, session = handling.game, handling.seat, handling.session
    session.refresh(moved_in)
    turn: dict[str, Any] = {
        "sequential": True,
        # Not applied: the game is paused, or adjudicating failed (the game master is told).
        "applied": moved_in.state in (RoundState.ADJUDICATED, RoundState.REPORTED),
        "finished": game.status == GameStatus.FINISHED,
        "winners": [],
        "draw": False,
        "movers": [],
        "your_turn": False,
        "next_round": None,
        "next_deadline": None,
    }
    if not turn["applied"]:
        return turn
    rules, state = rules_of(game), game_state(game)
    outcome = rules.outcome(state)
    if outcome is not None:
        return turn | {"winners": list(outcome.winners), "draw": outcome.draw}
    following = open_round_of(session, game)
    movers = list(rules.to_move(state))
    zone = seat.time_zone or game.time_zone
    return turn | {
        "movers": movers,
        "your_turn": seat.handle in movers,
        "next_round": following.number if following else None,
        "next_deadline": local_time(following.deadline if following else None, zone),
    }
