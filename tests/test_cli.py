"""The `adjudicate` command, run as a game master runs it (Typer's runner, a real database)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import cast
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner, Result

from adjudicator.base.config import load_config
from adjudicator.cli.main import app
from adjudicator.games.three_musketeers import RULES, State
from adjudicator.games.three_musketeers import standin as musketeers
from adjudicator.serve.runner import make_maildir_reader
from adjudicator.service.app import make_app
from adjudicator.storage.db import make_engine
from adjudicator.storage.models import (
    Game,
    OrderSet,
    OutboxMail,
    Round,
    RoundResult,
    RoundState,
    Submission,
)

GOLDEN = Path(__file__).parent / "golden"
runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADJUDICATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ADJUDICATOR_ADDRESS", "judge@pbem.test")
    monkeypatch.delenv("ADJUDICATOR_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def engine_of(env: Path):  # type: ignore[no-untyped-def]
    return make_engine(f"sqlite:///{env / 'data' / 'adjudicator.db'}")


def _piped(raw: bytes) -> None:
    """A mail through the pipe, as the mail server hands it over, then read from the Maildir
    by the service, as ``adjudicate serve`` reads it within a second."""
    assert runner.invoke(app, ["receive"], input=raw).exit_code == 0
    application = make_app(load_config())
    try:
        assert make_maildir_reader(application).run_once() == 1
    finally:
        application.engine.dispose()


def _row(status: str, handle: str) -> list[str]:
    """The words of a player's row in ``adjudicate status``."""
    return next(line.split() for line in status.splitlines() if line.split()[:1] == [handle])


def test_version_and_help() -> None:
    assert "adjudicator" in runner.invoke(app, ["version"]).output
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("replay", "init", "serve", "game", "status", "receive"):
        assert command in result.output


def test_replay_json_is_the_record_format_object() -> None:
    record = GOLDEN / "starship-combat" / "sample.record"
    result = runner.invoke(app, ["replay", str(record), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data == json.loads(record.with_suffix(".json").read_text(encoding="utf-8"))


def test_replay_text_reads_well() -> None:
    record = GOLDEN / "starship-combat" / "sample.record"
    result = runner.invoke(app, ["replay", str(record)])
    assert result.exit_code == 0
    assert "Round 8" in result.output
    assert "Game over:" in result.output


def test_replay_reads_standard_input() -> None:
    text = "game: starship-combat\nplayers: a b\nround 1\na: FIRE\nb: SHIELD\n"
    result = runner.invoke(app, ["replay", "-", "--json"], input=text)
    assert result.exit_code == 0
    assert json.loads(result.output)["rounds"][0]["state"]["missiles"] == {"a": 2, "b": 3}


def test_a_malformed_record_exits_2_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.record"
    path.write_text("game: starship-combat\nplayers: a b\nround 1\nzed: FIRE\n", encoding="utf-8")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "line 4" in result.output
    assert runner.invoke(app, ["replay", str(tmp_path / "missing.record")]).exit_code == 2


def _create_duel(*extra: str) -> Result:
    """``game create`` of a Starship Combat duel between ann and ben, 48 h a round."""
    players = ["--player", "ann=ann@example.org", "--player", "ben=ben@example.org"]
    create = ["game", "create", "duel", "--kind", "starship-combat", *players]
    return runner.invoke(app, [*create, "--schedule", "48h", *extra])


def _ann_fires(env: Path) -> None:
    """ann's orders (FIRE) through the pipe, with the password from her welcome mail."""
    with Session(engine_of(env)) as session:
        welcome = session.exec(
            select(OutboxMail).where(
                OutboxMail.recipient == "ann@example.org", OutboxMail.kind == "welcome"
            )
        ).one()
    secret = welcome.message.decode().split("PASSWORD ", 1)[1].split()[0]
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = (
        "ann@example.org",
        "judge@pbem.test",
        "[duel]",
    )
    message.set_content(f"PASSWORD {secret}\nfire\n")
    _piped(message.as_bytes())


def test_a_game_master_runs_a_game_from_the_command_line(env: Path) -> None:
    assert runner.invoke(app, ["init"]).exit_code == 0
    result = _create_duel()
    assert result.exit_code == 0, result.output
    with Session(engine_of(env)) as session:
        welcomes = session.exec(select(OutboxMail).where(OutboxMail.kind == "welcome")).all()
        assert sorted(m.recipient for m in welcomes) == ["ann@example.org", "ben@example.org"]
    status = runner.invoke(app, ["status"])
    assert "duel" in status.output
    assert _row(status.output, "ann")[:2] == ["ann", "MISSING"]

    # ann sends orders through the pipe, with the password from her welcome mail
    _ann_fires(env)
    assert _row(runner.invoke(app, ["status", "duel"]).output, "ann")[:2] == ["ann", "in"]

    # a dry run shows the result in words and stores nothing: ann's missile (one of her three)
    # destroys ben, who did not shield
    dry = runner.invoke(app, ["--round", "1", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "  missiles: ann 2, ben 3\n" in dry.output
    assert "  destroyed: ben\n" in dry.output
    with Session(engine_of(env)) as session:
        assert session.exec(select(Round)).one().state == RoundState.OPEN

    # closing by hand before the deadline
    closed = runner.invoke(app, ["--round", "1", "--game", "duel"])
    assert closed.exit_code == 0, closed.output
    assert "game over: ann" in closed.output
    with Session(engine_of(env)) as session:
        assert session.exec(select(Round)).one().state == RoundState.REPORTED

    # re-running an adjudicated round compares with the archive
    again = runner.invoke(app, ["--round", "1"])
    assert again.exit_code == 0
    assert "identical to the archived result" in again.output

    # the service keeps the archive site current, and the game master can rebuild it
    assert runner.invoke(app, ["serve", "--once"]).exit_code == 0
    round_page = env / "data" / "archive" / "duel" / "round-1.html"
    assert "ann" in round_page.read_text(encoding="utf-8")
    round_page.unlink()
    rebuilt = runner.invoke(app, ["archive", "build", "--game", "duel"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert round_page.exists()


def test_the_game_master_hears_of_creation_start_and_end_and_the_players_of_the_start(
    env: Path,
) -> None:
    runner.invoke(app, ["init"])
    created = _create_duel("--gm", "gm@example.org", "--no-start")
    assert created.exit_code == 0, created.output
    assert "summary mailed to the game master gm@example.org" in created.output
    (summary,) = _mails(env, "gm:created")
    assert summary["To"] == "gm@example.org"
    text = _plain(summary)
    assert "ann@example.org" in text  # the players and their addresses
    assert "ben@example.org" in text
    assert "adjudicate game start duel" in text  # not started: how to start it

    started = runner.invoke(app, ["game", "start", "duel"])
    assert started.exit_code == 0, started.output
    starts = _mails(env, "started")
    assert sorted(m["To"] for m in starts) == ["ann@example.org", "ben@example.org"]
    for mail in starts:
        assert "Round 1 is open; its deadline is" in _plain(mail)
        assert "  ann\n" in _plain(mail)
        assert "  ben\n" in _plain(mail)
    assert len(_mails(env, "gm:started")) == 1

    _ann_fires(env)
    assert runner.invoke(app, ["--round", "1", "--game", "duel"]).exit_code == 0
    # ann fired and ben did not shield: ben is destroyed, ann has won
    (over,) = _mails(env, "gm:game_over")
    assert over["Subject"] == "[duel] Game over in round 1: won by ann"
    assert "ended in round 1: won by ann." in _plain(over)
    status = runner.invoke(app, ["status", "duel"]).output
    assert "game over in round 1: won by ann" in status


def _mails(env: Path, kind: str) -> list[EmailMessage]:
    with Session(engine_of(env)) as session:
        rows = session.exec(select(OutboxMail).where(OutboxMail.kind == kind)).all()
    parser = BytesParser(policy=policy.default)
    return [cast(EmailMessage, parser.parsebytes(row.message)) for row in rows]


def _plain(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def test_a_dry_run_shows_the_result_mail_the_players_then_get(env: Path) -> None:
    """``--round N --dry-run`` prints the result mail in words, stores nothing and mails
    nothing; closing the round for real then mails the players the same text."""
    runner.invoke(app, ["init"])
    assert _create_duel().exit_code == 0
    _ann_fires(env)
    dry = runner.invoke(app, ["--round", "1", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "----- the result mail to ann <ann@example.org> -----" in dry.output
    assert _mails(env, "result") == []  # nothing queued
    assert _mails(env, "gm:game_over") == []
    with Session(engine_of(env)) as session:
        assert session.exec(select(Round)).one().state == RoundState.OPEN
        assert session.exec(select(RoundResult)).all() == []

    assert runner.invoke(app, ["--round", "1"]).exit_code == 0
    results = {str(m["To"]): m for m in _mails(env, "result")}
    assert sorted(results) == ["ann@example.org", "ben@example.org"]
    ann = results["ann@example.org"]
    assert f"Subject: {ann['Subject']}" in dry.output
    assert _plain(ann).rstrip("\n") in dry.output
    # ben's mail is shown too when it holds something of his own; else it is counted
    shown_ben = "----- the result mail to ben <ben@example.org> -----" in dry.output
    assert shown_ben or "(1 more player(s) get the same report" in dry.output
    if shown_ben:
        assert _plain(results["ben@example.org"]).rstrip("\n") in dry.output


def test_round_errors_have_clear_messages_and_codes(env: Path) -> None:
    runner.invoke(app, ["init"])
    assert runner.invoke(app, ["--round", "1"]).exit_code == 2  # no game to pick
    runner.invoke(
        app,
        [
            "game",
            "create",
            "g1",
            "--kind",
            "starship-combat",
            "--player",
            "a=a@x.org",
            "--player",
            "b=b@x.org",
        ],
    )
    result = runner.invoke(app, ["--round", "5", "--game", "g1"])
    assert result.exit_code == 3
    assert "no round 5" in result.output
    result = runner.invoke(app, ["--round", "1", "--game", "nope"])
    assert result.exit_code == 3
    bad = runner.invoke(app, ["game", "create", "g2", "--kind", "chess", "--player", "a=a@x.org"])
    assert bad.exit_code == 1
    assert "unknown game" in bad.output


def test_receive_stores_even_what_it_cannot_use(env: Path) -> None:
    runner.invoke(app, ["init"])
    _piped(b"\xff\xfe not a mail at all")
    with Session(engine_of(env)) as session:
        assert len(session.exec(select(Submission)).all()) == 1


def _create(*extra: str) -> None:
    result = runner.invoke(
        app,
        [
            "game",
            "create",
            "gw",
            "--kind",
            "giveaway",
            "--player",
            "ann=ann@example.org",
            "--player",
            "ben=ben@example.org",
            "--player",
            "cat=cat@example.org",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output


def test_the_game_master_keeps_who_has_ordered_to_himself(env: Path) -> None:
    """``--setting show_waiting=false``: reminders and STATUS no longer name who has ordered."""
    runner.invoke(app, ["init"])
    _create("--setting", "show_waiting=false")
    with Session(engine_of(env)) as session:
        game = session.exec(select(Game)).one()
    assert game.settings == {"show_waiting": False}


def test_a_game_master_manages_a_running_game(env: Path) -> None:
    runner.invoke(app, ["init"])
    _create(
        "--schedule",
        "tue,fri 21:00",
        "--time-zone",
        "Europe/London",
        "--gm",
        "gm@example.org",
        "--setting",
        "reminders=24h,2h",
        "--setting",
        "grace=6h",
    )
    with Session(engine_of(env)) as session:
        round_ = session.exec(select(Round)).one()
        assert round_.deadline is not None
        local = round_.deadline.astimezone(ZoneInfo("Europe/London"))
        assert (local.strftime("%a"), local.hour, local.minute) in (("Tue", 21, 0), ("Fri", 21, 0))

    paused = runner.invoke(app, ["game", "pause", "gw"])
    assert paused.exit_code == 0, paused.output
    assert "paused" in runner.invoke(app, ["status", "gw"]).output
    resumed = runner.invoke(app, ["game", "resume", "gw"])
    assert resumed.exit_code == 0, resumed.output
    assert "21:00" in resumed.output  # still on the calendar

    extended = runner.invoke(app, ["game", "extend", "gw", "--until", "2099-01-02 18:30"])
    assert extended.exit_code == 0, extended.output
    assert "Friday 02 January 2099, 18:30 GMT (Europe/London)" in extended.output
    with Session(engine_of(env)) as session:  # read in the game's zone: London is on GMT then
        moved = session.exec(select(Round)).one().deadline
    assert moved == datetime(2099, 1, 2, 18, 30, tzinfo=UTC)

    replaced = runner.invoke(app, ["player", "replace", "gw", "ben", "bea@example.org"])
    assert replaced.exit_code == 0, replaced.output
    with Session(engine_of(env)) as session:
        kinds = [m.kind for m in session.exec(select(OutboxMail))]
    assert kinds.count("paused") == 3
    assert kinds.count("deadline_changed") == 6  # resumed, then extended
    assert kinds.count("welcome") == 3  # at the start
    assert kinds.count("takeover") == 1  # the newcomer's: the game so far

    assert runner.invoke(app, ["--round", "1", "--game", "gw"]).exit_code == 0
    rolled = runner.invoke(app, ["game", "rollback", "gw", "--round", "1"])
    assert rolled.exit_code == 0, rolled.output
    assert "round 1 open again" in rolled.output


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["game", "pause", "nope"], 3, "no game called 'nope'"),
        (["game", "resume", "gw"], 1, "not paused"),
        (["game", "extend", "gw"], 2, "give either --by or --until"),
        (["game", "extend", "gw", "--by", "soon"], 2, "'soon' is not a duration"),
        (["game", "extend", "gw", "--until", "tomorrow"], 2, "is not a date and time"),
        (["game", "extend", "gw", "--until", "2001-01-01 12:00"], 1, "has passed already"),
        (["game", "rollback", "gw", "--round", "1"], 1, "is open: nothing to roll back"),
        (["player", "remove", "gw", "zed"], 3, "no player 'zed'"),
        (["player", "add", "gw", "dan", "dan@example.org"], 1, "only be added before round 1"),
    ],
)
def test_game_master_commands_refuse_clearly(
    env: Path, args: list[str], code: int, says: str
) -> None:
    runner.invoke(app, ["init"])
    _create("--schedule", "72h")
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert says in result.output


def test_bad_settings_and_schedules_are_refused_at_creation(env: Path) -> None:
    runner.invoke(app, ["init"])
    for extra, says in (
        (["--setting", "early_close=maybe"], "'early_close' is true or false"),
        (["--schedule", "fri 21:00", "--time-zone", "Mars/Base"], "unknown time zone"),
        (["--schedule", "fortnightly"], "cannot read schedule"),
    ):
        result = runner.invoke(
            app,
            ["game", "create", "gx", "--kind", "giveaway", "--player", "a=a@x.org", *extra],
        )
        assert result.exit_code != 0
        assert says in result.output


def test_removing_a_player_or_putting_a_stand_in_is_told_to_the_players(env: Path) -> None:
    """From the command line as by mail: every player still in the game hears of the change."""
    runner.invoke(app, ["init"])
    _create("--schedule", "72h")
    removed = runner.invoke(app, ["player", "remove", "gw", "cat"])
    assert removed.exit_code == 0, removed.output
    assert "3 player(s) told" in removed.output
    told = {m["To"]: str(m["Subject"]) for m in _mails(env, "game_change")}
    assert told == {  # cat too (issue 40): it is the last mail of the game cat gets
        "ann@example.org": "[gw] cat is out of the game",
        "ben@example.org": "[gw] cat is out of the game",
        "cat@example.org": "[gw] The game master has taken you out of the game",
    }

    assert runner.invoke(app, ["player", "stand-in", "gw", "ann"]).exit_code == 0
    assert runner.invoke(app, ["player", "stand-in", "gw", "ann", "--off"]).exit_code == 0
    subjects = sorted(str(m["Subject"]) for m in _mails(env, "game_change")[3:])
    assert subjects == [
        "[gw] The computer now plays ann",
        "[gw] The computer now plays ann",
        "[gw] ann plays their own seat again",
        "[gw] ann plays their own seat again",
    ]


def test_the_game_master_gets_a_new_reply_address_and_the_old_one_is_void(env: Path) -> None:
    runner.invoke(app, ["init"])
    _create("--schedule", "72h", "--gm", "gm@example.org")
    (created,) = _mails(env, "gm:created")
    renewed = runner.invoke(app, ["game", "gm", "gw", "new.gm@example.org"])
    assert renewed.exit_code == 0, renewed.output
    assert "mailed to new.gm@example.org" in renewed.output
    (notice,) = _mails(env, "gm:game_master")
    assert notice["To"] == "new.gm@example.org"
    assert notice["Reply-To"] != created["Reply-To"]
    assert str(notice["Reply-To"]).startswith("judge+g")
    assert runner.invoke(app, ["game", "gm", "nope"]).exit_code == 3


def _mail_in(sender: str, subject: str, body: str) -> None:
    """A mail through the pipe, as the mail server hands it over."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "judge@pbem.test", subject
    message["Message-ID"] = f"<{abs(hash((sender, body)))}@example.org>"
    message.set_content(body)
    _piped(message.as_bytes())


def _kinds(env: Path) -> list[tuple[str, str]]:
    with Session(engine_of(env)) as session:
        return [(m.kind, m.recipient) for m in session.exec(select(OutboxMail))]


def test_the_game_master_offers_a_seat_and_decides_a_join_from_the_command_line(env: Path) -> None:
    """player offer: the standby list gets the offer; player approve|decline: a JOIN waiting
    under join=approve is let in or turned away, and the joiner is told."""
    runner.invoke(app, ["init"])
    assert _create_duel("--gm", "gm@example.org").exit_code == 0
    _mail_in("sam@elsewhere.example", "standby", "STANDBY starship-combat")
    with Session(engine_of(env)) as session:
        answer = session.exec(select(OutboxMail).where(OutboxMail.kind == "answer")).one()
    code = answer.message.decode().split("STANDBY starship-combat ", 1)[1].split()[0]
    _mail_in("sam@elsewhere.example", "standby", f"STANDBY starship-combat {code}")
    offered = runner.invoke(app, ["player", "offer", "duel", "ben"])
    assert offered.exit_code == 0, offered.output
    assert "1 address(es) on standby" in offered.output
    assert ("seat_offer", "sam@elsewhere.example") in _kinds(env)
    assert runner.invoke(app, ["player", "offer", "duel", "zed"]).exit_code == 3

    players = [f"--player={p}={p}@example.org" for p in ("amy", "bo", "cy")]
    create = ["game", "create", "sf", "--kind", "sissyfight", *players, "--no-start"]
    settings = ["--setting", "signup=5", "--setting", "join=approve", "--gm", "gm@example.org"]
    assert runner.invoke(app, [*create, *settings]).exit_code == 0
    for joiner in ("dee@elsewhere.example", "eve@elsewhere.example"):
        _mail_in(joiner, "join", "JOIN sf")
        with Session(engine_of(env)) as session:
            asked = [m for m in session.exec(select(OutboxMail)) if m.recipient == joiner]
        code = asked[-1].message.decode().split("JOIN sf ", 1)[1].split()[0]
        _mail_in(joiner, "join", f"JOIN sf {code}")
    assert [k for k in _kinds(env) if k[0] == "gm:join_request"] == [
        ("gm:join_request", "gm@example.org")
    ] * 2
    approved = runner.invoke(app, ["player", "approve", "sf", "dee@elsewhere.example"])
    assert approved.exit_code == 0, approved.output
    declined = runner.invoke(app, ["player", "decline", "sf", "eve@elsewhere.example"])
    assert declined.exit_code == 0, declined.output
    again = runner.invoke(app, ["player", "approve", "sf", "eve@elsewhere.example"])
    assert again.exit_code == 3
    decided = [r for kind, r in _kinds(env) if kind == "join_decided"]
    assert sorted(decided) == ["dee@elsewhere.example", "eve@elsewhere.example"]
    assert ("welcome", "dee@elsewhere.example") in _kinds(env)
    assert ("welcome", "eve@elsewhere.example") not in _kinds(env)


def test_a_computer_seat_in_three_musketeers_plays_from_the_complete_solution(env: Path) -> None:
    """Creating the game hands the machine's solution (made first if there is none: a few
    minutes, docs/stand-ins.md) to the game before the computer's first move, made at once."""
    kept = list(musketeers.SOLUTION)
    musketeers.SOLUTION.clear()
    try:
        runner.invoke(app, ["init"])
        players = ["--player", "cpu=", "--player", "ann=ann@example.org"]  # cpu: the Musketeers
        create = ["game", "create", "solo", "--kind", "three-musketeers", *players]
        created = runner.invoke(app, [*create, "--setting", "stand_ins=cpu"])
        assert created.exit_code == 0, created.output
        assert musketeers.SOLUTION  # installed by the command, from the machine's file
        with Session(engine_of(env)) as session:
            (moved,) = session.exec(select(OrderSet)).all()
        assert moved.receipt == "stand-in"
        opening = State(("cpu", "ann"))
        assert RULES.check(opening, "cpu", moved.lines).ok
    finally:
        musketeers.SOLUTION[:] = kept


def test_a_seat_the_computer_plays_is_created_with_no_address(env: Path) -> None:
    runner.invoke(app, ["init"])
    players = ["--player", "ann=ann@example.org", "--player", "cpu="]
    create = ["game", "create", "solo", "--kind", "three-musketeers", *players]
    created = runner.invoke(app, [*create, "--setting", "stand_ins=cpu", "--schedule", "48h"])
    assert created.exit_code == 0, created.output
    assert "played by the computer" in " ".join(_row(created.output, "cpu"))  # no welcome
    with Session(engine_of(env)) as session:
        recipients = set(session.exec(select(OutboxMail.recipient)))
    assert recipients == {"ann@example.org"}
    assert "(none: nobody is mailed)" in runner.invoke(app, ["status", "solo"]).output
    refused = runner.invoke(app, [*create[:2], "duo", *create[3:]])  # no stand_ins setting
    assert refused.exit_code != 0
    assert "'cpu' has no address" in refused.output


def test_absent_stand_in_is_refused_for_a_game_played_in_turns(env: Path) -> None:
    """Issue 40, finding 7: in a game played in turns the missed move is counted when its
    grace ends, the moment the player forfeits, so a stand-in "from the next round" never
    plays; the game master is told so when he asks for it, with what to do instead."""
    runner.invoke(app, ["init"])
    players = ["--player", "a=a@x.org", "--player", "b=b@x.org"]
    for kind in ("rock-scissors-paper", "three-musketeers"):
        result = runner.invoke(
            app,
            ["game", "create", "gx", "--kind", kind, *players, "--setting", "absent=stand-in"],
        )
        assert result.exit_code != 0
        said = " ".join(result.output.split())
        assert "absent=stand-in does not work in" in said
        assert "forfeits a player who misses his move deadline" in said
        assert "adjudicate player stand-in" in said
    with Session(engine_of(env)) as session:
        assert session.exec(select(Game)).all() == []


def test_a_round_of_a_paused_game_is_not_closed_by_hand(env: Path) -> None:
    """README: no round closes while the game is paused, ``adjudicate --round`` included; the
    refusal says how to go on."""
    runner.invoke(app, ["init"])
    _create("--schedule", "72h")
    assert runner.invoke(app, ["game", "pause", "gw"]).exit_code == 0
    refused = runner.invoke(app, ["--round", "1", "--game", "gw"])
    assert refused.exit_code == 1, refused.output
    assert "game gw is paused" in refused.output
    assert "adjudicate game resume gw" in refused.output
    with Session(engine_of(env)) as session:
        assert session.exec(select(Round)).one().state == RoundState.OPEN
    assert runner.invoke(app, ["game", "resume", "gw"]).exit_code == 0
    assert runner.invoke(app, ["--round", "1", "--game", "gw"]).exit_code == 0


def test_the_game_master_reads_a_players_record_and_sets_a_minimum(env: Path) -> None:
    """docs/club.md: ``adjudicate player record ADDRESS`` tells the record across games;
    ``--setting min_reliability=`` and ``--setting rating=`` are read and checked."""
    runner.invoke(app, ["init"])
    _create("--schedule", "72h", "--setting", "min_reliability=80", "--setting", "rating=1400-")
    shown = runner.invoke(app, ["player", "record", "Ann@Example.org"])
    assert shown.exit_code == 0, shown.output
    assert "ann@example.org:" in shown.output
    assert "games: 1 played, 0 finished, 0 won" in shown.output
    assert "reliability: 100 (last 0 rounds" in shown.output
    for setting, says in (
        ("min_reliability=high", "'min_reliability' is a whole number from 0 to 100"),
        ("rating=1800-1400", "setting 'rating' is a band of ratings"),
        ("rated=perhaps", "setting 'rated' is true or false"),
    ):
        result = runner.invoke(
            app,
            [
                "game",
                "create",
                "gx",
                "--kind",
                "giveaway",
                "--player",
                "a=a@x.org",
                "--player",
                "b=b@x.org",
                "--player",
                "c=c@x.org",
                "--setting",
                setting,
            ],
        )
        assert result.exit_code != 0
        assert says in result.output
