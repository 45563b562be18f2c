"""The three gaps an attacker found in the guards, reproduced as he did: ``adjudicate`` in an
empty data folder, mail in through ``adjudicate receive``, one ``adjudicate serve --once``, the
outcome read from the database. The same cases, one rule each, are in
``tests/service/test_limits.py``."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

ADJUDICATE = Path(sys.executable).parent / "adjudicate"


@dataclass(frozen=True)
class Served:
    """The data folder after the attacks and one ``serve --once``, and the outbox rows that
    were there before the attacks (the welcome mails) by recipient."""

    data: Path
    before: dict[str, int]

    def ask(self, query: str, *params: object) -> list[tuple[object, ...]]:
        with sqlite3.connect(self.data / "adjudicator.db") as db:
            return list(db.execute(query, params))

    def mails_since(self, recipient: str) -> int:
        [(count,)] = self.ask("select count(*) from outboxmail where recipient = ?", recipient)
        assert isinstance(count, int)
        return count - self.before.get(recipient, 0)


def _run(env: dict[str, str], *args: str, mail: bytes | None = None) -> None:
    subprocess.run(
        [str(ADJUDICATE), *args],
        input=mail,
        env=env,
        capture_output=True,
        timeout=300,
        check=True,
    )


def _welcome_of(data: Path, address: str) -> str:
    """The welcome mail to ``address`` as the service wrote it into its outbox folder."""
    for path in (data / "outbox-maildir" / "new").iterdir():
        text = path.read_text(errors="replace")
        if f"X-Envelope-To: {address}" in text:
            return text
    raise AssertionError(f"no welcome mail to {address}")


def _deliver(data: Path, name: str, raw: bytes) -> None:
    """Into the service's Maildir as ``adjudicate receive`` delivers (tmp/, then new/): the
    flood of 110 mails, which through one process each would take minutes here."""
    folder = data / "maildir"
    (folder / "tmp" / name).write_bytes(raw)
    (folder / "tmp" / name).rename(folder / "new" / name)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    data = tmp_path_factory.mktemp("limits") / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    env["ADJUDICATOR_DATA_DIR"] = str(data)
    _run(env, "init")
    players = ("gina", "hank", "ivan")
    _run(env, "game", "create", "g3", "--kind", "giveaway", "--schedule", "72h",
         *(f"--player={p}={p}@example.org" for p in players))  # fmt: skip
    _run(env, "game", "create", "g4", "--kind", "sissyfight", "--schedule", "72h",
         *(f"--player={p}={p}@example.org" for p in ("kim", "lee", "max")))  # fmt: skip
    _run(env, "serve", "--once")
    with sqlite3.connect(data / "adjudicator.db") as db:
        before = dict(db.execute("select recipient, count(*) from outboxmail group by recipient"))
    now = format_datetime(datetime.now(UTC))

    # 1. Twenty wrong passwords from four addresses of one IPv6 /64, then hank's right one.
    found = re.search(r"PASSWORD ([a-z0-9]+)", _welcome_of(data, "hank@example.org"))
    assert found is not None

    def orders(relay: str, password: str, message_id: str) -> bytes:
        return (
            f"Received: from mail.example.net (mail.example.net [{relay}]) by mx.example.org"
            f" (Postfix) with ESMTPS id A1; {now}\nFrom: hank@example.org\nTo: judge@localhost\n"
            f"Subject: [g3] orders\nDate: {now}\nMessage-ID: <{message_id}@example.net>\n\n"
            f"GIVE 3 TO gina\nPASSWORD {password}\n"
        ).encode()

    for host in range(1, 5):
        for n in range(1, 6):
            forged = orders(f"IPv6:2001:db8:66:1::{host}", f"wrong{host}{n}", f"forged-{host}-{n}")
            _run(env, "receive", mail=forged)
    _run(env, "receive", mail=orders("198.51.100.20", found[1], "right-password"))

    # 2. HELP and orders in the name of a stranger and of a player, 35 of each.
    def simple(sender: str, subject: str, body: str, message_id: str) -> bytes:
        return (
            f"From: {sender}\nTo: judge@localhost\nSubject: {subject}\nDate: {now}\n"
            f"Message-ID: <{message_id}@example.net>\n\n{body}\n"
        ).encode()

    flood = [
        *(("victim@victim.test", "help", "HELP", f"v-help-{i}") for i in range(35)),
        *(("victim@victim.test", "[g3] orders", "GIVE 3 TO hank", f"v-orders-{i}") for i in range(5)),
        *(("gina@example.org", "help", "HELP", f"g-help-{i}") for i in range(35)),
        *(("gina@example.org", "[g3] orders", "GIVE 3 TO hank", f"g-orders-{i}") for i in range(35)),
    ]  # fmt: skip
    for number, (sender, subject, body, message_id) in enumerate(flood):
        _deliver(
            data, f"1700000000.flood{number:03d}.test", simple(sender, subject, body, message_id)
        )

    # 3. Orders written a day before the round opened, dated +0000 and -0000.
    day_ago = datetime.now(UTC) - timedelta(days=1)
    for player, zone in (("kim", "+0000"), ("lee", "-0000")):
        found = re.search(r"judge\+[a-z0-9]+@localhost", _welcome_of(data, f"{player}@example.org"))
        assert found is not None
        written = f"{day_ago:%a, %d %b %Y %H:%M:%S} {zone}"
        raw = (
            f"From: {player}@example.org\nTo: {found[0]}\nSubject: orders\nDate: {written}\n"
            f"Message-ID: <{player}-late@example.org>\n\nDEFEND\n"
        ).encode()
        _run(env, "receive", mail=raw)

    _run(env, "serve", "--once")
    return Served(data, before)


def test_forged_tries_from_one_ipv6_network_leave_the_players_password_working(
    served: Served,
) -> None:
    """Issue 1: 4 addresses of one /64 are one host, locked after five tries; hank's right
    password from his own relay is applied, where it was refused unanswered."""
    [(status, note)] = served.ask(
        "select status, note from submission where message_id = ?",
        "<right-password@example.net>",
    )
    assert status == "accepted", note


def test_every_answer_counts_towards_one_budget_per_address(served: Served) -> None:
    """Issue 2: an address with no seat gets 3 answers an hour, a player's address 30, the
    answers to HELP included (they were 33 and 60)."""
    assert served.mails_since("victim@victim.test") == 3
    assert served.mails_since("gina@example.org") == 30


def test_orders_dated_in_minus_0000_before_the_round_are_refused_as_with_plus_0000(
    served: Served,
) -> None:
    """Issue 3: ``-0000`` is UTC (RFC 5322 3.3); the mail of the day before is refused as
    written before round 1 opened, the same as ``+0000``."""
    rows = served.ask(
        "select sender, status, note from submission where sender in (?, ?) order by id",
        "kim@example.org",
        "lee@example.org",
    )
    assert [(sender, status) for sender, status, _ in rows] == [
        ("kim@example.org", "rejected"),
        ("lee@example.org", "rejected"),
    ]
    assert all("before round 1" in str(note) for _, _, note in rows)
