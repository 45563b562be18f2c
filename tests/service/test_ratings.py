"""Ratings per kind of game (issue 44; docs/club.md, "Ratings"): after a set of finished
games, the ratings the service tells by mail are those of the Weng-Lin Plackett-Luce model,
worked out here from its published equations (Weng and Lin, JMLR 12, 2011, Algorithm 4, with
OpenSkill's additive dynamics tau), not from the library's own output."""

from __future__ import annotations

import math
from itertools import count

from playing import close_open_round, new_game, plain, plain_mail, queued
from sqlmodel import select

from adjudicator.base.security import join_code
from adjudicator.core.game import Setup
from adjudicator.readmodel.ratings import rated_games
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, Seat

_numbers = count()
BETA, TAU, KAPPA = 250.0, 5.0, 0.0001  # OpenSkill's defaults (25/6, 25/300, 1e-4) on our scale
START = (1500.0, 500.0)  # mu, sigma: OpenSkill's 25 and 25/3, times 60


def plackett_luce(
    before: dict[str, tuple[float, float]], ranks: dict[str, int]
) -> dict[str, tuple[float, float]]:
    """One game, one player a team: Weng and Lin's Algorithm 4.

    sigma_i^2 <- sigma_i^2 + tau^2 (additive dynamics, before the game)
    c = sqrt(sum_i (sigma_i^2 + beta^2))
    C_q = sum over s ranked no better than q of exp(mu_s / c); A_q = teams tied with q
    Omega_i = sigma_i^2 / c * sum over q ranked no worse than i of ([q = i] - e_i / C_q) / A_q
    Delta_i = gamma_i * sigma_i^2 / c^2 * sum over the same q of (e_i / C_q)(1 - e_i / C_q) / A_q
    with gamma_i = sigma_i / c; mu_i += Omega_i; sigma_i^2 *= max(1 - Delta_i, kappa)."""
    variance = {p: s * s + TAU * TAU for p, (_, s) in before.items()}
    c = math.sqrt(sum(v + BETA * BETA for v in variance.values()))
    e = {p: math.exp(mu / c) for p, (mu, _) in before.items()}
    big_c = {q: sum(e[s] for s in before if ranks[s] >= ranks[q]) for q in before}
    tied = {q: sum(1 for s in before if ranks[s] == ranks[q]) for q in before}
    after = {}
    for i, (mu, _) in before.items():
        above = [q for q in before if ranks[q] <= ranks[i]]
        omega = sum(((q == i) - e[i] / big_c[q]) / tied[q] for q in above)
        delta = sum((e[i] / big_c[q]) * (1 - e[i] / big_c[q]) / tied[q] for q in above)
        omega *= variance[i] / c
        delta *= math.sqrt(variance[i]) / c * variance[i] / c**2
        after[i] = (mu + omega, math.sqrt(variance[i] * max(1 - delta, KAPPA)))
    return after


def test_the_first_duel_by_hand() -> None:
    """Two newcomers, one game: c^2 = 2 (500^2 + 5^2 + 250^2) = 625050, the winner's Omega
    is sigma^2 / 2c = 250025 / 1581.20 = 158.12, the loser's its opposite."""
    after = plackett_luce({"ann": START, "bob": START}, {"ann": 1, "bob": 2})
    assert round(after["ann"][0], 2) == 1658.12
    assert round(after["bob"][0], 2) == 1341.88
    # Delta = (sigma / c)(sigma^2 / c^2) / 4 = 0.632427 x 0.400008 / 4 = 0.063244
    assert round(after["ann"][1], 2) == round(math.sqrt(250025 * (1 - 0.0632440)), 2)


def add_orders(app: App, game: str, handle: str, line: str) -> None:
    """``handle``'s orders in force in the open round of ``game``, as the intake stores them
    (``playing.add_orders`` for a handle that plays in several games)."""
    with session_scope(app.engine) as session:
        found = find_game(session, game)
        round_ = open_round_of(session, found)
        seat = session.exec(
            select(Seat).where(Seat.game_id == found.id, Seat.handle == handle)
        ).one()
        assert round_ is not None
        assert round_.id is not None
        assert seat.id is not None
        session.add(
            OrderSet(
                round_id=round_.id,
                seat_id=seat.id,
                lines=[line],
                receipt="r",
                created_at=app.clock(),
            )
        )


def _duel(app: App, name: str, winner: str, loser: str) -> None:
    """Starship Combat (docs/rules/starship-combat.md): both shield, then the winner fires at
    the loser, who does nothing: the loser is destroyed."""
    new_game(app, [winner, loser], name=name, kind="starship-combat")
    add_orders(app, name, winner, "SHIELD")
    add_orders(app, name, loser, "SHIELD")
    close_open_round(app, name)
    add_orders(app, name, winner, "FIRE")
    add_orders(app, name, loser, "NOTHING")
    close_open_round(app, name)


def _giveaway_won_by(app: App, name: str, winner: str, others: list[str]) -> None:
    """Giveaway (docs/rules/giveaway.md, rule 1): the first of ``others`` starts holding 100
    and gives it all to the winner, who alone scores 100 or more; the others tie below."""
    rich, *rest = others
    setup = Setup(start={"holdings": {rich: 100}})
    new_game(app, [winner, *others], name=name, setup=setup)
    add_orders(app, name, rich, f"GIVE 100 TO {winner}")
    add_orders(app, name, winner, f"GIVE 3 TO {rich}")
    for other in rest:
        add_orders(app, name, other, f"GIVE 3 TO {rich}")
    close_open_round(app, name)


def _rating_mail(app: App, sender: str) -> str:
    raw = plain_mail(sender, "RATING", subject="ratings", message_id=f"<rt{next(_numbers)}@x>")
    app.ingest(raw, channel="pipe")
    mails = [m for m in queued(app) if m["To"] == sender]
    return " ".join(plain(mails[-1]).split())


def test_ratings_after_finished_games_follow_the_models_equations(app: App) -> None:
    """Two duels of Starship Combat (ann beats bob, then cy beats ann) and a Giveaway of four
    (dan wins; ann, bob and cy share second place). Each kind rates on its own."""
    _duel(app, "d1", "ann", "bob")
    _duel(app, "d2", "cy", "ann")
    _giveaway_won_by(app, "g1", "dan", ["bob", "ann", "cy"])

    duels = plackett_luce({"ann": START, "bob": START}, {"ann": 1, "bob": 2})
    duels |= plackett_luce({"cy": START, "ann": duels["ann"]}, {"cy": 1, "ann": 2})
    giveaway = plackett_luce(
        dict.fromkeys(("dan", "ann", "bob", "cy"), START), {"dan": 1, "ann": 2, "bob": 2, "cy": 2}
    )

    answer = _rating_mail(app, "ann@example.org")
    ann_duel, ann_sigma = duels["ann"]
    assert (
        f"Starship Combat: {round(ann_duel)} (give or take {round(ann_sigma)}), after 2 rated "
        "games; 2 of 3." in answer
    )
    ann_give, ann_give_sigma = giveaway["ann"]
    assert (
        f"Giveaway: {round(ann_give)} (give or take {round(ann_give_sigma)}), after 1 rated "
        "game; 2 of 4." in answer
    )
    answer = _rating_mail(app, "cy@example.org")
    assert f"Starship Combat: {round(duels['cy'][0])} " in answer
    assert "1 of 3." in answer
    assert "bob" not in answer
    assert "ann" not in answer.replace("Giveaway", "")


def test_a_game_with_a_stand_in_is_unrated_unless_its_game_master_says_so(app: App) -> None:
    """docs/club.md, "Which games count": a seat the computer plays keeps a game out of the
    ratings, unless ``rated=true``; ``rated=false`` keeps any game out."""
    _duel(app, "d1", "ann", "bob")
    with session_scope(app.engine) as session:
        game = find_game(session, "d1")
        game.settings = {**game.settings, "stand_ins": ["bob"]}
        session.add(game)
    with session_scope(app.engine) as session:
        assert rated_games(session, "starship-combat") == []
        game = find_game(session, "d1")
        game.settings = {**game.settings, "rated": True}
        session.add(game)
    with session_scope(app.engine) as session:
        assert [g.name for g in rated_games(session, "starship-combat")] == ["d1"]
        game = find_game(session, "d1")
        game.settings = {"rated": False}
        session.add(game)
    with session_scope(app.engine) as session:
        assert rated_games(session, "starship-combat") == []
    assert "no rated game yet" in _rating_mail(app, "ann@example.org")


def test_a_join_outside_the_games_rating_band_is_refused_with_the_numbers(app: App) -> None:
    """``rating=1450-1800`` on a Giveaway: bob, who shared second place in one game of four,
    is below it and refused with his rating and the band; dan, who won it, and a newcomer
    (1500) are given their codes."""
    _giveaway_won_by(app, "g1", "dan", ["bob", "ann", "cy"])
    new_game(
        app,
        ["eve", "fay", "gus"],
        name="g5",
        start=False,
        settings={"signup": 6, "rating": "1450-1800"},
        gm_address="gm@example.org",
    )
    ranks = {"dan": 1, "ann": 2, "bob": 2, "cy": 2}
    bob = round(plackett_luce(dict.fromkeys(ranks, START), ranks)["bob"][0])
    assert bob < 1450

    answer = _mail(app, "bob@example.org", "JOIN g5")
    assert (
        f"game g5 is open to players rated 1450 to 1800 in Giveaway, and your rating there is "
        f"{bob}" in answer
    )
    assert join_code(app.ctx.receipt_key, "g5", "bob@example.org") not in answer
    for admitted in ("dan@example.org", "newcomer@example.org"):
        answer = _mail(app, admitted, "JOIN g5")
        assert join_code(app.ctx.receipt_key, "g5", admitted) in answer


def _mail(app: App, sender: str, body: str) -> str:
    raw = plain_mail(sender, body, subject="join", message_id=f"<j{next(_numbers)}@x>")
    app.ingest(raw, channel="pipe")
    mails = [m for m in queued(app) if m["To"] == sender]
    return " ".join(plain(mails[-1]).split())
