"""Tournaments by mail (docs/tournaments.md): a tournament made with its players, each pairing
of a round made a game of the service with the tournament's schedule, settings and options, the
next round paired when the last game of a round ends, and a mail to every player per round with
his pairing and the standings.

The results are read from the games themselves each time (never copied): a game the game master
rolls back (``adjudicate rerun``) is under way again, and its round waits for it to end again.
The pairing and the standings are pure (``core/pairing.py``, ``core/standings.py``).

This module makes the rounds; the games it makes are begun by the ``begin`` it is given
(``closing.begin_game``, which may close a round at once and end a game, and so calls back
here): ``tournaments.py`` gives it, and is what the command line and the mail use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlmodel import Session, select

from adjudicator.base.logs import events as events_of
from adjudicator.core.game import Setup
from adjudicator.core.pairing import (
    Met,
    Pairing,
    PairingError,
    meetings_of,
    round_robin,
    round_robin_rounds,
    swiss,
    tables,
)
from adjudicator.core.standings import figure
from adjudicator.core.text import is_handle
from adjudicator.games import UnknownGame, game_title, get_rules, kind_of
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.readmodel.ratings import ratings_of_kind
from adjudicator.readmodel.stored import setup_from_json, setup_to_json
from adjudicator.readmodel.tournaments import result_of, standings_of, two_sided
from adjudicator.service import ServiceError
from adjudicator.service.games import (
    PlayerSpec,
    checked_address,
    create_game,
    refuse_absent_stand_in,
)
from adjudicator.service.handover import find_seat, hand_over
from adjudicator.service.settings import read_settings
from adjudicator.service.tournament_news import gm_reply_to, seat_reply_to
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.models import Game, GameStatus, Round
from adjudicator.storage.tournaments import (
    FORMATS,
    SIDES,
    Tournament,
    TournamentGame,
    TournamentPlayer,
    entrants_of,
    games_by_id,
    games_of,
    players_of,
    tournament_game_of,
    tournament_named,
)

events = events_of("adjudicator.tournaments")

Ratings = Callable[[str, Sequence[str]], Mapping[str, float]]
"""The seam where a tournament reads ratings (kind, addresses -> rating by address): the seeds
are then in the order of the ratings, best first. Without it, the order of sign-up."""

Begin = Callable[..., Round]
"""Opens a new game's first round (``closing.begin_game(session, game, ctx=, now=)``)."""

_P = TypeVar("_P")


def club_ratings(session: Session) -> Ratings:
    """The club's ratings (``readmodel/ratings.py``) as the seam reads them: the mean of each
    person with a rated game of the kind; nobody else is named."""

    def rated(kind: str, addresses: Sequence[str]) -> Mapping[str, float]:
        found = ratings_of_kind(session, kind).ratings
        keys = {a: a.strip().lower() for a in addresses}
        return {a: found[key].mu for a, key in keys.items() if key in found}

    return rated


def _seeded(
    players: list[_P], kind: str, ratings: Ratings | None, *, address: Callable[[_P], str]
) -> list[_P]:
    """Seed order (docs/tournaments.md): the rated players by rating, best first, then those
    with no rated game of the kind in the order they came (a stable sort keeps ties so too)."""
    if ratings is None:
        return players
    rated = ratings(kind, [address(p) for p in players])
    return sorted(players, key=lambda p: -rated.get(address(p), float("-inf")))


def find_tournament(session: Session, name: str) -> Tournament:
    found = tournament_named(session, name)
    if found is None:
        raise ServiceError(f"no tournament called {name!r}", exit_code=3)
    return found


def create_tournament(
    session: Session,
    *,
    name: str,
    kind: str,
    format: str,
    players: Sequence[PlayerSpec],
    rounds: int | None = None,
    sides: str = "both",
    schedule: str | None = None,
    settings: Mapping[str, Any] | None = None,
    options: Mapping[str, str] | None = None,
    setup: Setup = Setup(),  # noqa: B008 - an immutable default
    gm_address: str | None = None,
    table_size: int | None = None,
    signup: bool = False,
    join_approve: bool = False,
    ratings: Ratings | None = None,
    now: datetime,
) -> Tournament:
    """A tournament of ``players`` (seeded by ``ratings`` where given, else in the order
    given). A round-robin of two-player games plays ``n - 1`` rounds (``n`` for an odd
    number); a Swiss tournament and one of a multiplayer kind play ``rounds``. With ``signup``
    it is open to ``JOIN NAME`` by mail until it starts (``tournament_signup.py``), each JOIN
    waiting for the game master under ``join_approve``."""
    name = name.strip().lower()
    if not is_handle(name):
        raise ServiceError(f"{name!r} is not a usable tournament name (a letter, then letters)")
    if tournament_named(session, name) is not None:
        raise ServiceError(f"a tournament called {name!r} exists already")
    if format not in FORMATS:
        raise ServiceError(f"unknown format {format!r} (one of: {', '.join(FORMATS)})")
    if sides not in SIDES:
        raise ServiceError(f"unknown sides {sides!r} (one of: {', '.join(SIDES)})")
    try:
        kind = kind_of(kind.lower()).name
    except UnknownGame:
        raise ServiceError(f"unknown game {kind!r}") from None
    handles = [p.handle.lower() for p in players]
    if len(set(handles)) != len(handles) or (len(handles) < 2 and not signup):
        raise ServiceError("a tournament needs two players or more, each with a handle of his own")
    # Its games' settings are checked now, not when a round makes its games.
    refuse_absent_stand_in(kind, read_settings(kind, schedule, "UTC", dict(settings or {})))
    if format == "round-robin" and two_sided(kind):
        rounds = round_robin_rounds(len(handles)) if len(handles) > 1 else 0  # set at the start
    elif not rounds or rounds < 1:
        raise ServiceError("say how many rounds it plays (--rounds N)")
    rules = get_rules(kind)
    if table_size is not None and not (
        rules.min_players <= table_size <= (rules.max_players or table_size) and table_size > 2
    ):
        raise ServiceError(f"{game_title(kind)} cannot be played at tables of {table_size}")
    order = _seeded(list(players), kind, ratings, address=lambda p: p.address)
    tournament = Tournament(
        name=name,
        kind=kind,
        format=format,
        rounds=rounds,
        sides=sides if two_sided(kind) else "one",
        table_size=None if two_sided(kind) else table_size,
        schedule=schedule,
        settings=dict(settings or {}),
        options=dict(options or {}),
        setup=setup_to_json(setup),
        gm_address=gm_address,
        signup=signup,
        join_approve=join_approve,
        created_at=now,
    )
    session.add(tournament)
    session.flush()
    assert tournament.id is not None
    for seed, player in enumerate(order):
        session.add(
            TournamentPlayer(
                tournament_id=tournament.id,
                seed=seed,
                handle=player.handle.lower(),
                address=player.address.strip(),
            )
        )
    session.flush()
    return tournament


def start_tournament(
    session: Session,
    tournament: Tournament,
    *,
    ctx: ServiceContext,
    now: datetime,
    ratings: Ratings | None = None,
    begin: Begin,
) -> list[Game]:
    """Close the sign-up, seed the players by ``ratings`` where given (those who signed up by
    mail too), pair round 1 and start its games (a JOIN still waiting for the game master is
    declined)."""
    if tournament.current_round:
        raise ServiceError(f"tournament {tournament.name} has started already")
    players = players_of(session, tournament)
    if len(players) < 2:
        raise ServiceError(f"tournament {tournament.name} has {len(players)} players: too few")
    for entrant in entrants_of(session, tournament):
        if entrant.status == "waiting":
            entrant.status = "declined"
            session.add(entrant)
    seeded = _seeded(players, tournament.kind, ratings, address=lambda p: p.address)
    others = [e for e in entrants_of(session, tournament) if e.status != "in"]
    for seed, player in enumerate([*seeded, *others]):
        player.seed = seed
        session.add(player)
    session.flush()
    if tournament.format == "round-robin" and two_sided(tournament.kind):
        tournament.rounds = round_robin_rounds(len(players))
    tournament.signup = False
    return _pair_round(session, tournament, ctx=ctx, now=now, begin=begin)


def _pair_round(
    session: Session, tournament: Tournament, *, ctx: ServiceContext, now: datetime, begin: Begin
) -> list[Game]:
    """The next round: its pairings, a game for each (two where a pairing plays both sides),
    and the round's mail to every player still in."""
    number = tournament.current_round + 1
    players = players_of(session, tournament)
    playing = [p for p in players if p.withdrawn_round is None]
    address = {p.handle: p.address for p in players}
    seats = _seatings(session, tournament, players, number)
    made: list[Game] = []
    assert tournament.id is not None
    for index, seated in enumerate(seats, start=1):
        row = TournamentGame(tournament_id=tournament.id, round=number, players=list(seated))
        out = [p for p in seated if p not in {q.handle for q in playing}]
        if len(seated) > 1 and out:
            row.forfeited_by = out[0]  # a round-robin pairing of a player who withdrew
        elif len(seated) > 1:
            game = _make_game(
                session,
                tournament,
                name=f"{tournament.name}r{number}g{index}",
                players=[PlayerSpec(h, address[h]) for h in seated],
                ctx=ctx,
                now=now,
                begin=begin,
            )
            row.game_id = game.id
            made.append(game)
        session.add(row)
    tournament.current_round = number
    session.add(tournament)
    session.flush()
    _tell_round(session, tournament, ctx=ctx, now=now)
    return made


def _seatings(
    session: Session, tournament: Tournament, players: Sequence[TournamentPlayer], number: int
) -> list[tuple[str, ...]]:
    """Who sits in each game of round ``number``, in seat order; a bye is one player alone."""
    playing = [p.handle for p in players if p.withdrawn_round is None]
    score = {s.player: s.score for s in standings_of(session, tournament)}
    ranked = sorted(playing, key=lambda h: -score[h])  # by score, then seed (a stable sort)
    if not two_sided(tournament.kind):
        played = [r.players for r in games_of(session, tournament) if len(r.players) > 1]
        size = tournament.table_size or get_rules(tournament.kind).max_players or len(ranked)
        minimum = get_rules(tournament.kind).min_players
        seated = tables(ranked, size=size, meetings=meetings_of(played), minimum=minimum)
        return [tuple(t) for t in seated]
    if tournament.format == "round-robin":
        pairings = round_robin([p.handle for p in players], number)
    else:
        pairings = swiss(ranked, _history(session, tournament))
    return [seated for p in pairings for seated in _games_of_pairing(tournament, p)]


def _games_of_pairing(tournament: Tournament, pairing: Pairing) -> list[tuple[str, ...]]:
    if pairing.second is None:
        return [(pairing.first,)]
    if tournament.sides == "both":
        return [(pairing.first, pairing.second), (pairing.second, pairing.first)]
    return [(pairing.first, pairing.second)]


def _history(session: Session, tournament: Tournament) -> list[Met]:
    """Every game so far from each player's side, and every bye."""
    met: list[Met] = []
    for row in games_of(session, tournament):
        if len(row.players) == 1:
            met.append(Met(row.players[0], None))
            continue
        first, second = row.players
        met += [Met(first, second, 0), Met(second, first, 1)]
    return met


def _make_game(
    session: Session,
    tournament: Tournament,
    *,
    name: str,
    players: Sequence[PlayerSpec],
    ctx: ServiceContext,
    now: datetime,
    begin: Begin,
) -> Game:
    """One game of a round, made and started as ``adjudicate game create`` makes one, with
    the tournament's schedule, settings and options; its players get their welcome."""
    game, credentials = create_game(
        session,
        name=name,
        kind=tournament.kind,
        players=players,
        options=tournament.options,
        setup=setup_from_json(tournament.setup),
        schedule=tournament.schedule,
        settings=dict(tournament.settings),
        gm_address=tournament.gm_address,
        now=now,
    )
    first = begin(session, game, ctx=ctx, now=now)
    queue_welcome(session, ctx=ctx, game=game, credentials=credentials, first_round=first, now=now)
    return game


def game_ended(
    session: Session, game: Game, *, ctx: ServiceContext, now: datetime, begin: Begin
) -> None:
    """A game ended: where it is a tournament's and the last of its round, the next round is
    paired (or the tournament ends); a game of an earlier round (rolled back, and ended again)
    may be the last the tournament's end waited for.

    The tournament's row is locked first (PostgreSQL): of two games of a round ending at once,
    the second to take the lock sees the first one's end, so one of them pairs the round. The
    pairing runs in a savepoint: where it fails (a game name taken meanwhile), the game's own
    end stands, and the failure is logged for the game master (``adjudicate tournament``)."""
    row = tournament_game_of(session, game)
    if row is None:
        return
    tournament = session.exec(
        select(Tournament).where(Tournament.id == row.tournament_id).with_for_update()
    ).first()
    if tournament is None or row.round > tournament.current_round:
        return
    try:
        with session.begin_nested():
            advance(session, tournament, ctx=ctx, now=now, begin=begin)
    except (ServiceError, PairingError) as error:
        events.error("tournament.stuck", tournament=tournament.name, why=str(error))


def advance(
    session: Session, tournament: Tournament, *, ctx: ServiceContext, now: datetime, begin: Begin
) -> bool:
    """Pair the next round, or end the tournament, once every game of the round is decided
    (its end waits for every game of every round: one rolled back is under way again); False
    while one is under way (or it is over)."""
    if tournament.finished_at is not None or not tournament.current_round:
        return False
    rows = [r for r in games_of(session, tournament) if r.round == tournament.current_round]
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    if any(result_of(tournament, r, games.get(r.game_id or 0)) is None for r in rows):
        return False
    playing = [p for p in players_of(session, tournament) if p.withdrawn_round is None]
    if tournament.current_round >= tournament.rounds or len(playing) < 2:
        if not _all_decided(session, tournament):
            return False  # a game of an earlier round rolled back: the end waits for it
        tournament.finished_at = now
        session.add(tournament)
        session.flush()
        _tell_round(session, tournament, ctx=ctx, now=now, final=True)
        return True
    _pair_round(session, tournament, ctx=ctx, now=now, begin=begin)
    return True


def _all_decided(session: Session, tournament: Tournament) -> bool:
    """Whether every game of every round is decided (none rolled back and under way again)."""
    rows = games_of(session, tournament)
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    return all(result_of(tournament, r, games.get(r.game_id or 0)) is not None for r in rows)


def player_named(session: Session, tournament: Tournament, handle: str) -> TournamentPlayer:
    """The player of ``tournament`` by his handle; ``ServiceError`` when there is none."""
    player = next((p for p in players_of(session, tournament) if p.handle == handle.lower()), None)
    if player is None:
        raise ServiceError(f"{handle!r} is not a player of tournament {tournament.name}")
    return player


def replace_player(
    session: Session,
    tournament: Tournament,
    handle: str,
    address: str,
    *,
    ctx: ServiceContext,
    now: datetime,
) -> list[Game]:
    """The person at ``address`` takes ``handle``'s place: his seed, his results so far and the
    handle (as a seat taken over keeps its handle), his seats in the games under way (each
    handed over as ``adjudicate player replace`` does: the newcomer gets the game so far and
    a password), and the games of the rounds to come. The games handed over."""
    player = player_named(session, tournament, handle)
    if player.withdrawn_round is not None:
        raise ServiceError(f"{handle} has withdrawn: his games are forfeited, his place is gone")
    player.address = checked_address(address, whose=player.handle)
    session.add(player)
    rows = [r for r in games_of(session, tournament) if player.handle in r.players]
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    handed = []
    for game in games.values():
        if game.status != GameStatus.FINISHED:
            hand_over(
                session, game, find_seat(session, game, player.handle), address, ctx=ctx, now=now
            )
            handed.append(game)
    session.flush()
    return handed


def _tell_round(
    session: Session,
    tournament: Tournament,
    *,
    ctx: ServiceContext,
    now: datetime,
    final: bool = False,
) -> None:
    """One mail per player still in (every player at the end): his games of the round with
    the opponents' handles and his sides, and the standings. Never an address."""
    players = players_of(session, tournament)
    rows = [r for r in games_of(session, tournament) if r.round == tournament.current_round]
    games = games_by_id(session, [r.game_id for r in rows if r.game_id is not None])
    titles = kind_of(tournament.kind).seat_titles
    table = [
        {
            "rank": s.rank,
            "handle": s.player,
            "score": figure(s.score),
            "buchholz": figure(s.buchholz),
            "sonneborn_berger": figure(s.sonneborn_berger),
            "withdrawn": s.withdrawn,
        }
        for s in standings_of(session, tournament)
    ]
    stage = "final" if final else "round"
    common = {
        "tournament": tournament.name,
        "game_title": game_title(tournament.kind),
        "format": tournament.format,
        "round": tournament.current_round,
        "rounds": tournament.rounds,
        "final": final,
        "standings": table,
        "tie_breaks": two_sided(tournament.kind),
        "gm": False,
    }
    for player in players:
        if player.withdrawn_round is not None and not final:
            continue
        mine = [r for r in rows if player.handle in r.players]
        pairing = [
            {
                "game": games[r.game_id].name if r.game_id in games else None,
                "opponents": [p for p in r.players if p != player.handle],
                "side": titles[r.players.index(player.handle)]
                if len(r.players) > 1 and len(titles) > r.players.index(player.handle)
                else None,
                "bye": len(r.players) == 1,
                "forfeited": r.forfeited_by is not None,
            }
            for r in mine
        ]
        # A reply reaches his seats in the round's games (``tournament_news.py``).
        reply_to = None if final else seat_reply_to(session, ctx, tournament, player.handle)
        queue_notice(
            session,
            Notice(
                "tournament_round",
                player.address,
                common
                | {
                    "handle": player.handle,
                    "pairing": [] if final else pairing,
                    "replies": reply_to is not None,
                    "several": sum(1 for p in pairing if p["game"]) > 1,
                },
                key=f"tournament:{tournament.id}:{tournament.current_round}:{stage}:{player.handle}",
                label="tournament",
                reply_to=reply_to,
            ),
            ctx=ctx,
            now=now,
        )
    if tournament.gm_address:
        _tell_game_master(session, tournament, rows, games, common, ctx=ctx, now=now, stage=stage)


def _tell_game_master(
    session: Session,
    tournament: Tournament,
    rows: Sequence[TournamentGame],
    games: Mapping[int, Game],
    common: Mapping[str, Any],
    *,
    ctx: ServiceContext,
    now: datetime,
    stage: str,
) -> None:
    """The game master's mail of the round: every game of it and the standings, with the
    tournament's game master's reply address, which takes his WITHDRAW and REPLACE."""
    assert tournament.gm_address is not None
    every = [
        {
            "game": game.name if (game := games.get(r.game_id or 0)) else None,
            "players": list(r.players),
            "bye": len(r.players) == 1,
            "forfeited_by": r.forfeited_by,
        }
        for r in rows
    ]
    queue_notice(
        session,
        Notice(
            "tournament_round",
            tournament.gm_address,
            dict(common)
            | {"handle": None, "gm": True, "pairing": [] if common["final"] else every},
            key=f"tournament:{tournament.id}:{tournament.current_round}:{stage}:gm",
            label="tournament",
            reply_to=gm_reply_to(ctx, tournament),
        ),
        ctx=ctx,
        now=now,
    )
