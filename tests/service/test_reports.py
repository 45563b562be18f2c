"""Reports by mail: a player asks for a round's report again (REPORT n) or for the game's
history (HISTORY), through the real intake, and gets what they may see, or a clear answer."""

from __future__ import annotations

from dataclasses import replace

import pytest
from playing import clock_of, close_open_round, plain, player_mail, queued
from sqlmodel import Session, col, select

from adjudicator.games import read_record, replay_record
from adjudicator.service.app import App
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.report_requests import ANSWERS_PER_HOUR
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, OutboxMail, RoundResult, SubmissionStatus

PLAYERS = ["alice", "bob", "carol"]
ROUNDS = [  # each round's orders; carol never writes
    {"alice": "GIVE 3 TO bob", "bob": "GIVE 2 TO alice\nGIVE 1 TO carol"},
    {"alice": "GIVE 7 TO carol", "bob": "GIVE 4 TO alice\nGIVE 4 TO carol"},
]
sent = queued


def forget_outbox(app: App) -> None:
    with session_scope(app.engine) as session:
        for row in session.exec(select(OutboxMail)):
            session.delete(row)


def new_game(app: App) -> dict[str, Credentials]:
    """Game gw1, round 1 open; its rounds are closed by hand."""
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw1",
            kind="giveaway",
            time_zone="Europe/London",
            schedule="72h",
            settings={"early_close": False},
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            options={},
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    return {c.handle: c for c in credentials}


@pytest.fixture
def played(app: App) -> dict[str, Credentials]:
    """Game gw1: two rounds played and reported, round 3 open; the outbox keeps their mails."""
    creds = new_game(app)
    for number, orders in enumerate(ROUNDS):
        for player, lines in orders.items():
            body = f"PASSWORD {creds[player].secret}\n{lines}\n"
            raw = player_mail("gw1", player, body, number=number)
            assert app.ingest(raw, channel="test") == SubmissionStatus.ACCEPTED
        clock_of(app).advance(hours=72)
        close_open_round(app, "gw1")
    return creds


def ask(
    app: App, creds: dict[str, Credentials], lines: str, *, player: str = "alice", number: int = 99
) -> str:
    raw = player_mail("gw1", player, f"PASSWORD {creds[player].secret}\n{lines}\n", number=number)
    return str(app.ingest(raw, channel="test"))


def test_a_report_asked_for_again_is_the_players_own_result_mail_of_that_round(
    app: App, played: dict[str, Credentials]
) -> None:
    originals = {m["To"]: plain(m) for m in sent(app, "result") if "Round 1 result" in m["Subject"]}
    forget_outbox(app)
    ask(app, played, "REPORT 1")
    ask(app, played, "report round 1", player="bob")
    copies = {m["To"]: m for m in sent(app, "report")}
    assert set(copies) == {"alice@example.org", "bob@example.org"}
    for player in ("alice", "bob"):
        address = f"{player}@example.org"
        copy, original = plain(copies[address]), originals[address]
        assert copies[address]["Subject"] == "[gw1] Round 1 report, as you asked"
        # What the round did, as this player was told it: from the greeting to the line about
        # the round that followed (which the copy replaces with where the game is now).
        told = original.split("\n\n", 1)[1].split("Round 2 is open")[0].strip()
        assert told in copy
        assert "Round 2 is open" not in copy
        assert "The game is now in round 3." in copy
    assert "Your gifts: GIVE 3 TO bob." in plain(copies["alice@example.org"])
    assert "Your gifts: GIVE 3 TO bob." not in plain(copies["bob@example.org"])
    # The copy answers the request: threaded under it, marked as an automatic reply.
    assert copies["alice@example.org"]["In-Reply-To"] == "<alice-99@example.org>"
    assert copies["alice@example.org"]["Auto-Submitted"] == "auto-replied"


def test_report_alone_means_the_last_round_and_its_pictures_come_along(
    app: App, played: dict[str, Credentials]
) -> None:
    forget_outbox(app)
    assert ask(app, played, "Report.") == SubmissionStatus.ACCEPTED
    [copy] = sent(app, "report")
    assert copy["Subject"] == "[gw1] Round 2 report, as you asked"
    html = copy.get_body(preferencelist=("html",))
    assert html is not None
    images = [p for p in copy.walk() if p["Content-ID"] is not None]
    assert {p.get_filename() for p in images} == {"gifts.png", "standings.png"}
    for image in images:
        assert f"cid:{str(image['Content-ID']).strip('<>')}" in str(html.get_content())


def test_several_rounds_in_one_line_each_get_their_mail(
    app: App, played: dict[str, Credentials]
) -> None:
    forget_outbox(app)
    ask(app, played, "REPORT 1-2")
    subjects = sorted(m["Subject"] for m in sent(app))
    assert subjects == [
        "[gw1] Round 1 report, as you asked",
        "[gw1] Round 2 report, as you asked",
    ]


def test_the_history_tells_the_game_and_its_record_replays_to_the_same_results(
    app: App, played: dict[str, Credentials]
) -> None:
    forget_outbox(app)
    assert ask(app, played, "HISTORY", player="carol") == SubmissionStatus.ACCEPTED
    [history] = sent(app, "history")
    assert history["To"] == "carol@example.org"
    text = plain(history)
    assert "2 rounds have been adjudicated so far." in text
    assert "Round 3 is open." in text
    assert "carol (you): playing" in text
    [attached] = [p for p in history.iter_attachments() if p.get_filename() == "gw1.record"]
    record = read_record(attached.get_content())
    assert record.players == tuple(PLAYERS)
    assert [[o.text for o in r.orders] for r in record.rounds] == [
        ["GIVE 3 TO bob", "GIVE 2 TO alice", "GIVE 1 TO carol"],
        ["GIVE 7 TO carol", "GIVE 4 TO alice", "GIVE 4 TO carol"],
    ]
    with Session(app.engine) as session:
        stored = [
            r.public_state for r in session.exec(select(RoundResult).order_by(col(RoundResult.id)))
        ]
    replayed = replay_record(record)["rounds"]
    assert isinstance(replayed, list)
    assert [r["state"] for r in replayed] == stored  # type: ignore[index]
    # The standings table: a row per player, the points received at the start and after each
    # round (docs/rules/giveaway.md). Round 1: carol sends nothing, so her 3 points are spread one each
    # to alice and bob, the leftover to alice (the next seat after her); bob->carol 1 and
    # carol->bob 1 make a ring of 2, each gift paying 2: alice 2+2 = 4, bob 3+2 = 5, carol 2.
    # Round 2 (holdings 7, 8, 5): no ring; carol's 5 spread 2, 2 and the leftover 1 to alice:
    # alice 4+3 = 7, bob 2, carol 7+4 = 11.
    table = text.split("Points received, after each round:\n\n")[1].split("\n\n")[0]
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()}
    assert rows["round"] == ["start", "1", "2"]
    assert rows["alice"] == ["0", "4", "7"]
    assert rows["bob"] == ["0", "5", "2"]
    assert rows["carol"] == ["0", "2", "11"]


def test_unanswerable_requests_are_each_named_with_what_to_write(
    app: App, played: dict[str, Credentials]
) -> None:
    forget_outbox(app)
    status = ask(app, played, "REPORT 2\nREPORT 7\nreport round seven\nREPORT 0")
    assert status == SubmissionStatus.REJECTED
    assert [m["Subject"] for m in sent(app, "report")] == ["[gw1] Round 2 report, as you asked"]
    [problem] = sent(app, "request_problem")
    text = plain(problem)
    assert (
        'line 3, "REPORT 7": round 7 has not been adjudicated yet; the last one is round 2' in text
    )
    assert 'line 4, "report round seven": could not read which rounds' in text
    assert 'line 5, "REPORT 0": rounds are numbered from 1' in text
    assert "Reports exist for rounds 1 to 2." in text


def test_requests_need_the_same_proof_as_orders(app: App, played: dict[str, Credentials]) -> None:
    forget_outbox(app)
    app.ingest(
        player_mail("gw1", "alice", "REPORT 1\nHISTORY", number=5), channel="test"
    )  # From alone: not trusted
    assert [m["X-Test-Kind"] for m in sent(app)] == ["refusal"]
    # The personal reply address is proof enough; the answer goes to the registered address.
    token_address = f"judge+{played['alice'].reply_token}@pbem.test"
    raw = player_mail("gw1", "alice.at.work", "HISTORY", number=6)
    raw = raw.replace(b"To: judge@pbem.test", f"To: {token_address}".encode())
    assert app.ingest(raw, channel="test") == SubmissionStatus.ACCEPTED
    [history] = sent(app, "history")
    assert history["To"] == "alice@example.org"


def test_orders_and_requests_in_one_mail_are_both_answered(
    app: App, played: dict[str, Credentials]
) -> None:
    forget_outbox(app)
    with Session(app.engine) as session:
        last = session.exec(select(RoundResult).order_by(col(RoundResult.id).desc())).first()
        assert last is not None
        holding = last.public_state["holdings"]["alice"]
    ask(app, played, f"GIVE {holding} TO carol\nREPORT 2")
    assert sorted(m["X-Test-Kind"] for m in sent(app)) == ["confirmation", "report"]
    with Session(app.engine) as session:
        newest = session.exec(select(OrderSet).order_by(col(OrderSet.id).desc())).first()
        assert newest is not None
        assert newest.lines == [f"GIVE {holding} TO carol"]


def test_a_request_before_any_round_is_adjudicated_says_so(app: App) -> None:
    credentials = new_game(app)
    ask(app, credentials, "REPORT\nHISTORY")
    kinds = sorted(m["X-Test-Kind"] for m in sent(app))
    assert kinds == ["history", "request_problem"]
    [problem] = sent(app, "request_problem")
    assert "no round of this game has been adjudicated yet" in plain(problem)
    [history] = sent(app, "history")
    assert "No round has been adjudicated yet." in plain(history)


def test_with_a_published_archive_the_answers_link_to_its_pages(
    app: App, played: dict[str, Credentials]
) -> None:
    app.ctx = replace(app.ctx, archive_url="https://pbem.example.org/games/")
    forget_outbox(app)
    ask(app, played, "REPORT 2\nHISTORY")
    [report] = sent(app, "report")
    assert "https://pbem.example.org/games/gw1/round-2.html" in plain(report)
    [history] = sent(app, "history")
    assert "https://pbem.example.org/games/gw1/" in plain(history)
    html = history.get_body(preferencelist=("html",))
    assert html is not None
    assert "https://pbem.example.org/games/gw1/" in str(html.get_content())


def test_a_player_gets_so_many_answers_an_hour_and_is_told_when_the_limit_is_reached(
    app: App, played: dict[str, Credentials]
) -> None:
    forget_outbox(app)
    for number in range(ANSWERS_PER_HOUR // 2):  # each mail gets two answers
        # Message-IDs of their own: a mail with one seen before is a replay (not answered).
        ask(app, played, "REPORT 1\nHISTORY", number=1000 + number)
    assert len(sent(app)) == ANSWERS_PER_HOUR
    ask(app, played, "REPORT 2\nHISTORY")
    [problem] = sent(app, "request_problem")
    text = plain(problem)
    assert f'line 2, "REPORT 2": the service sends at most {ANSWERS_PER_HOUR} reports' in text
    assert 'line 3, "HISTORY": the service sends at most' in text
    # Another player is not held back, and an hour later the player is answered again.
    ask(app, played, "REPORT 2", player="bob")
    assert sent(app)[-1]["X-Test-Kind"] == "report"
    clock_of(app).advance(hours=1)
    ask(app, played, "REPORT 2", number=100)
    assert sent(app)[-1]["X-Test-Kind"] == "report"
