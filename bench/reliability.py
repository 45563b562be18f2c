"""Reliability under hostile mail and attacks, measured through the real intake.

Run: .venv/bin/python bench/reliability.py [--mails 100000] [--seed 1] [--short]
     [--big-mb 10,50] [--parts hostile,attacks,kills,outages] [--kills 50] [--kill-mails 1000]
     [--kill-games 50] [--kill-rounds 100] [--outages imap,smtp,postgres,disk,lock]
     [--outage-seconds 30] [--outage-mails 30] [--lock-seconds 15]

1. Hostile mail: ``--mails`` generated and mutated mails (valid orders and their mutations:
   broken MIME, wrong and unknown charsets, 8-bit and RFC 2047 garbage in headers, deep
   multipart and message/rfc822 nesting, bodies of ``--big-mb`` MB, 100,000 header fields, HTML
   bombs, zip and TNEF attachments, NUL bytes, binary junk, random byte flips, cuts and
   repeats) go one at a time through ``App.ingest`` (what ``serve`` does with each mail it
   reads: store, commit, process, queue the answer) on a fresh SQLite database. Counted:
   crashes (an exception out of the intake, or a mail left ``failed``), mails not stored, mails
   left unprocessed, mails accepted or rejected with neither an answer nor the reason it was
   held back, mails ignored without a reason; the slowest mail (its generator); peak RSS of
   this process. Floor, same run: the standard library's parser alone on the same mails.
   Then ``--imap-mails`` more go through a real Dovecot (tests/mailservers.py): APPENDed to a
   folder 200 at a time and taken by the service's IMAP reader (``ImapPoller`` with the
   service's cursor, FETCH batches of 50 into ``App.ingest_batch``, as ``serve`` runs it);
   the slowest FETCH batch is named by its kinds.
2. Attacks: each attack of issue 16 tried against a fresh database through the same intake,
   and whether it succeeded (an order applied that should not be, an answer that should not
   go, a player locked out, a header or envelope broken). Among them: the old mailbox after
   ``SET ADDRESS`` and ``player address``; guessing from many hosts; player text (press,
   order lines, subjects, handles asked for at JOIN) with CR, LF, U+2028/2029, NEL, VT, FF,
   markup and 4,000-character lines, checked in every mail queued to anybody (no header it
   made, no line over 998 bytes, no markup in an HTML part, the queued recipient alone) and
   in every page and feed of the archive built afterwards.

3. Kills (bench/reliability_faults.py): ``adjudicate serve`` killed with SIGKILL ``--kills``
   times at random moments of its life (while it starts, or up to ``--kill-window`` seconds
   into serving) while ``--kill-mails`` order mails for ``--kill-games`` games arrive and
   ``--kill-rounds`` rounds come due; then ``serve --once`` finishes. Orders
   lost or applied twice, rounds skipped or adjudicated twice, result mails and confirmations
   missing or sent twice, worker processes left running.

4. Outages (bench/reliability_faults.py; ``--outages imap,smtp,postgres,disk,lock``): Dovecot
   stopped, aiosmtpd stopped, a private PostgreSQL stopped, the SQLite file's disk full, each for
   ``--outage-seconds``, and the SQLite write lock held for ``--lock-seconds``, while
   ``--outage-mails`` order mails arrive: ``serve`` must stay up, log and count its waits, back
   off and catch up with nothing lost; ``adjudicate receive`` must store a piped mail all the
   same (it needs the Maildir only), and the service take it once the database is back.

5. Time (bench/reliability_time.py): deadlines across daylight-saving changes and 29 February
   in five zones, on the tests' clock; ``serve`` started after a deadline passed while it was
   stopped.

``--short`` is the mode the test suite runs (tests/test_reliability_bench.py): 200 mails, 100
through Dovecot, small big bodies, every attack, the time cases, 3 kills, 3 s outages (not the
lock). The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import contextlib
import imaplib
import io
import json
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from sqlmodel import Session, col, select

from adjudicator.archive.build import build_archive
from adjudicator.base.config import Config, ServiceConfig
from adjudicator.base.security import address_code, join_code
from adjudicator.core.text import HANDLE
from adjudicator.mail.imap import HandlerError, ImapPoller, ImapSettings
from adjudicator.notify.loop_guard import LOOP_ANSWERS
from adjudicator.notify.throttle import STRANGERS_PER_HOUR
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.gm import change_address, replace_player
from adjudicator.service.intake import digest_of
from adjudicator.service.rounds import open_round_of, start_game
from adjudicator.storage.cursors import DatabaseCursorStore
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    Game,
    LoginFailure,
    OrderSet,
    OutboxMail,
    Seat,
    Submission,
    SubmissionStatus,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import reliability_faults as faults
from mailservers import Dovecot
from playing import START, Clock
from reliability_time import deadlines, stopped_service

SERVICE = "judge@pbem.test"
PLAYERS = ("alice", "bob", "carol")


@dataclass
class World:
    """A fresh service: one running Giveaway game ``gw1`` (and ``gw2``) of three players."""

    app: App
    folder: Path
    creds: dict[str, Credentials]
    clock: Clock = field(default_factory=Clock)

    @classmethod
    def make(cls) -> World:
        folder = Path(tempfile.mkdtemp(prefix="reliability-"))
        app = make_app(Config(service=ServiceConfig(data_dir=str(folder), address=SERVICE)))
        clock = Clock()
        app.clock = clock
        creds: dict[str, Credentials] = {}
        with session_scope(app.engine) as session:
            for name in ("gw1", "gw2"):
                game, credentials = create_game(
                    session,
                    name=name,
                    kind="giveaway",
                    schedule="72h",
                    settings={"early_close": False},
                    players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
                    options={},
                    now=clock(),
                )
                start_game(session, game, now=clock())
                if name == "gw1":
                    creds = {c.handle: c for c in credentials}
        return cls(app, folder, creds, clock)

    def close(self) -> None:
        self.app.engine.dispose()
        shutil.rmtree(self.folder, ignore_errors=True)

    def order_count(self) -> int:
        with Session(self.app.engine) as session:
            return len(session.exec(select(OrderSet.id)).all())

    def outbox(self) -> list[OutboxMail]:
        with Session(self.app.engine) as session:
            return list(session.exec(select(OutboxMail).order_by(col(OutboxMail.id))))


def mail(
    body: str | bytes,
    *,
    sender: str = "alice@example.org",
    subject: str = "[gw1] orders",
    to: str = SERVICE,
    number: int = 0,
    date: datetime = START,
    **headers: str,
) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = f"<r{number}-{random.getrandbits(48)}@example.org>"
    message["Date"] = format_datetime(date)
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    if isinstance(body, bytes):
        message.set_content(body, maintype="application", subtype="octet-stream")
    else:
        message.set_content(body)
    return message.as_bytes()


# ---------------------------------------------------------------------------------------------
# 1. Hostile mail


def _valid(rng: random.Random, secret: str) -> bytes:
    other = rng.choice(("bob", "carol"))
    return mail(f"Hi\n\nPASSWORD {secret}\nGIVE 3 TO {other}\n", number=rng.getrandbits(32))


def _head(extra: str, body: bytes = b"GIVE 3 TO bob\n") -> bytes:
    return f"From: alice@example.org\nTo: {SERVICE}\nSubject: [gw1] x\n{extra}\n\n".encode() + body


def hostile_kinds(
    big_mb: list[int], short: bool
) -> dict[str, Callable[[random.Random, str], bytes]]:
    """Each generator of hostile mail, by name."""
    depth = 30 if short else 200
    headers = 2_000 if short else 100_000

    def broken_mime(rng: random.Random, _s: str) -> bytes:
        return _head('Content-Type: multipart/mixed; boundary="b"', b"--b\nno end\n--c--\n")

    def unknown_charset(rng: random.Random, s: str) -> bytes:
        cs = rng.choice(("x-unknown", "utf-7", "koi8-r", "iso-2022-jp", "\x00", "utf-8 bad"))
        return _head(
            f'Content-Type: text/plain; charset="{cs}"',
            f"PASSWORD {s}\n".encode() + bytes(rng.randrange(256) for _ in range(200)),
        )

    def header_garbage(rng: random.Random, _s: str) -> bytes:
        junk = bytes(rng.randrange(128, 256) for _ in range(60))
        return (
            b"From: =?utf-8?B?"
            + junk
            + b"?= <alice@example.org>\nSubject: =?x-bad?Q?=FF=00?= "
            + junk
            + b"\nTo: "
            + SERVICE.encode()
            + b"\n\nGIVE 3 TO bob\n"
        )

    def deep_multipart(rng: random.Random, _s: str) -> bytes:
        parts = "".join(
            f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth)
        )
        return _head("MIME-Version: 1.0", parts.encode() + b"text\n")

    def nested_rfc822(rng: random.Random, s: str) -> bytes:
        inner = _valid(rng, s)
        for _ in range(depth // 3):
            inner = _head("Content-Type: message/rfc822", inner)
        return inner

    def many_headers(rng: random.Random, _s: str) -> bytes:
        return _head("".join(f"X-H{i}: v\n" for i in range(headers)).rstrip("\n"))

    def html_bomb(rng: random.Random, _s: str) -> bytes:
        nest = 50 if short else 400
        html = "<ul><li>" * nest + "GIVE 3 TO bob" + "</li></ul>" * nest
        return _head("Content-Type: text/html", html.encode())

    def zip_attachment(rng: random.Random, s: str) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("orders.txt", "0" * 1_000_000)
        message = message_from_bytes(_valid(rng, s), policy=policy.default)
        assert isinstance(message, EmailMessage)
        message.add_attachment(
            buffer.getvalue(), maintype="application", subtype="zip", filename="a.zip"
        )
        message.add_attachment(
            bytes(rng.randrange(256) for _ in range(500)),
            maintype="application",
            subtype="ms-tnef",
            filename="winmail.dat",
        )
        return message.as_bytes()

    def nul_bytes(rng: random.Random, s: str) -> bytes:
        raw = bytearray(_valid(rng, s))
        for _ in range(5):
            raw.insert(rng.randrange(len(raw)), 0)
        return bytes(raw)

    def binary_junk(rng: random.Random, _s: str) -> bytes:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4000)))

    def mutated(rng: random.Random, s: str) -> bytes:
        raw = bytearray(_valid(rng, s))
        for _ in range(rng.randrange(1, 8)):
            at = rng.randrange(len(raw))
            action = rng.randrange(3)
            if action == 0:
                raw[at] = rng.randrange(256)
            elif action == 1:
                del raw[at : at + rng.randrange(1, 40)]
            else:
                raw[at:at] = raw[at : at + rng.randrange(1, 200)]
        return bytes(raw)

    kinds: dict[str, Callable[[random.Random, str], bytes]] = {
        "valid": _valid,
        "broken-mime": broken_mime,
        "unknown-charset": unknown_charset,
        "header-garbage": header_garbage,
        "deep-multipart": deep_multipart,
        "nested-rfc822": nested_rfc822,
        "html-bomb": html_bomb,
        "zip-tnef": zip_attachment,
        "nul-bytes": nul_bytes,
        "binary-junk": binary_junk,
        "mutated": mutated,
    }
    rare: dict[str, Callable[[random.Random, str], bytes]] = {"many-headers": many_headers}
    for size in big_mb:
        rare[f"body-{size}mb"] = lambda rng, s, size=size: _head(
            "", b"GIVE 3 TO bob\n" * (size * 2**20 // 14)
        )
    return kinds | rare


RARE = ("many-headers", "body-")
"""Generators too slow to run often: each runs a few times per run."""


def _plan(count: int, rng: random.Random, kinds: list[str]) -> list[str]:
    """``count`` generator names: the rare ones twice each, the others drawn at random."""
    common = [k for k in kinds if not k.startswith(RARE)]
    plan = [k for k in kinds if k.startswith(RARE) for _ in range(2)]
    plan += [rng.choice(common) for _ in range(max(0, count - len(plan)))]
    rng.shuffle(plan)
    return plan


def hostile(count: int, seed: int, big_mb: list[int], short: bool) -> dict[str, object]:
    """Every mail through ``App.ingest``, one at a time."""
    rng = random.Random(seed)
    world = World.make()
    secret = world.creds["alice"].secret
    kinds = hostile_kinds(big_mb, short)
    plan = _plan(count, rng, list(kinds))
    crashes, slowest, times, floor = 0, ("", 0.0), [], 0.0
    tried: Counter[str] = Counter()
    digests: set[str] = set()
    try:
        for number, kind in enumerate(plan):
            raw = kinds[kind](rng, secret)
            tried[kind] += 1
            digests.add(digest_of(raw))
            world.clock.now = START + timedelta(seconds=number * 30)  # limits per hour apply
            began = time.perf_counter()
            try:
                world.app.ingest(raw, channel="bench")
            except Exception:  # the figure: an exception out of the intake
                crashes += 1
            took = time.perf_counter() - began
            times.append(took)
            if took > slowest[1]:
                slowest = (kind, took)
            began = time.perf_counter()
            message_from_bytes(raw, policy=policy.compat32)
            floor += time.perf_counter() - began
            _progress(number + 1, crashes, sum(times))
        figures = _hostile_outcomes(world, digests)
    finally:
        world.close()
    total = sum(times)
    return {
        "through": "App.ingest, one mail at a time",
        "mails": len(plan),
        "distinct": len(digests),  # some generators repeat their bytes: the copies are dropped
        "kinds": dict(sorted(tried.items())),
        "crashes": crashes + int(figures.pop("failed")),
        **figures,
        "seconds": round(total, 2),
        "mails_per_second": round(len(plan) / total, 1) if total else None,
        "median_ms": round(statistics.median(times) * 1000, 2) if times else None,
        "slowest_kind": slowest[0],
        "slowest_seconds": round(slowest[1], 3),
        "floor_stdlib_parse_seconds": round(floor, 2),
        "peak_rss_mb": _peak_rss_mb(),
    }


def _progress(done: int, crashes: int, seconds: float, *, every: int = 1) -> None:
    """A line on stderr every 1,000 mails: a long run shows how far it got."""
    if done // 1000 != (done - every) // 1000:
        print(
            f"  ... {done} mails, {crashes} crashes, {seconds:.0f} s in the intake,"
            f" peak RSS {_peak_rss_mb()} MB",
            file=sys.stderr,
            flush=True,
        )


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


APPEND_CHUNK = 200
"""Mails put into the Dovecot folder with one MULTIAPPEND before the reader takes them."""


@dataclass
class _ImapRun:
    """What the service's IMAP reader handed to the intake, batch by batch."""

    world: World
    plan: list[str]
    handed: int = 0
    crashes: int = 0
    digests: set[str] = field(default_factory=set)
    times: list[float] = field(default_factory=list)
    slowest: tuple[list[str], float] = ([], 0.0)
    floor: float = 0.0

    def take(self, raws: list[bytes], _delivered: list[datetime | None]) -> None:
        """The poller's ``handle_batch``: ``ingest_batch`` as ``adjudicate serve`` calls it,
        with the clock at 30 s a mail so that the limits per hour apply (so not by the
        messages' INTERNALDATE, which is the wall clock's)."""
        kinds = self.plan[self.handed : self.handed + len(raws)]
        self.world.clock.now = START + timedelta(seconds=self.handed * 30)
        self.handed += len(raws)
        self.digests.update(digest_of(raw) for raw in raws)
        began = time.perf_counter()
        try:
            self.world.app.ingest_batch(raws, channel="imap")
        except Exception:  # the figure: an exception out of the intake (the batch comes again)
            self.crashes += 1
            raise
        finally:
            took = time.perf_counter() - began
            self.times.append(took)
            if took > self.slowest[1]:
                self.slowest = (kinds, took)
        began = time.perf_counter()
        for raw in raws:
            message_from_bytes(raw, policy=policy.compat32)
        self.floor += time.perf_counter() - began
        _progress(self.handed, self.crashes, sum(self.times), every=len(raws))


def hostile_imap(count: int, seed: int, big_mb: list[int], short: bool) -> dict[str, object]:
    """The same mails APPENDed to a real Dovecot folder, ``APPEND_CHUNK`` at a time, and taken
    by the service's IMAP reader (``ImapPoller``, the service's own cursor in the database,
    FETCH batches of 50 into ``App.ingest_batch``). Dovecot stores what it is given in its own
    way (LF becomes CRLF, a NUL byte 0x80), so what must be stored is what the reader handed
    over: its digests."""
    try:
        server = Dovecot.create()
        server.start()
    except BaseException as error:  # no Dovecot here: say so instead of a figure
        return {"through": "Dovecot", "skipped": f"{type(error).__name__}: {error}"}
    rng = random.Random(seed)
    world = World.make()
    kinds = hostile_kinds(big_mb, short)
    run = _ImapRun(world, _plan(count, rng, list(kinds)))
    user = "judge"
    poller = ImapPoller(
        ImapSettings(host=server.host, port=server.port, username=user, password=server.password),
        cursors=DatabaseCursorStore(world.app.engine),
        handle_batch=run.take,
    )
    appending, reading, appended, refused = 0.0, 0.0, 0, 0
    try:
        with server.client(user) as client:
            for start in range(0, len(run.plan), APPEND_CHUNK):
                chunk = [
                    kinds[k](rng, world.creds["alice"].secret)
                    for k in run.plan[start : start + APPEND_CHUNK]
                ]
                began = time.perf_counter()
                appended, refused = _append(client, chunk, appended, refused)
                appending += time.perf_counter() - began
                began = time.perf_counter()
                with contextlib.suppress(HandlerError):  # counted in take(); comes again
                    poller.run_once()
                reading += time.perf_counter() - began
        figures = _hostile_outcomes(world, run.digests)
    finally:
        poller.close()
        world.close()
        server.remove()
    total = sum(run.times)
    return {
        "through": "Dovecot: APPEND, then the service's IMAP reader",
        "mails": len(run.plan),
        "appended": appended,
        "refused_by_dovecot": refused,
        "kinds": dict(sorted(Counter(run.plan).items())),
        "handed_to_intake": run.handed,
        "distinct_as_fetched": len(run.digests),
        "crashes": run.crashes + int(figures.pop("failed")),
        **figures,
        "append_seconds": round(appending, 1),
        "read_and_ingest_seconds": round(reading, 1),
        "ingest_seconds": round(total, 1),
        "mails_per_second_read_and_ingest": round(run.handed / reading, 1) if reading else None,
        "slowest_batch_seconds": round(run.slowest[1], 3),
        "slowest_batch_kinds": dict(Counter(run.slowest[0])),
        "floor_stdlib_parse_seconds": round(run.floor, 2),
        "peak_rss_mb": _peak_rss_mb(),
    }


def _append(client: Any, raws: list[bytes], appended: int, refused: int) -> tuple[int, int]:
    """MULTIAPPEND ``raws``; if the server refuses the command, one by one, counting what it
    refuses (it never reaches the service, as a mail server would refuse it at SMTP)."""
    try:
        client.multiappend("INBOX", raws)
        return appended + len(raws), refused
    except imaplib.IMAP4.error:
        for raw in raws:
            try:
                client.append("INBOX", raw)
                appended += 1
            except imaplib.IMAP4.error:
                refused += 1
        return appended, refused


def _hostile_outcomes(world: World, digests: set[str]) -> dict[str, int]:
    with Session(world.app.engine) as session:
        rows = session.exec(
            select(Submission.id, Submission.digest, Submission.status, Submission.note)
        ).all()
        answered = {
            int(key.split(":")[1])
            for key in session.exec(select(OutboxMail.key))
            if key.startswith(("reply:", "answer:"))  # answers to sections, to commands
        }
    stored = {digest for _, digest, _, _ in rows}
    status = Counter(s for _, _, s, _ in rows)
    silent = [
        id_
        for id_, _, s, note in rows
        if s in (SubmissionStatus.ACCEPTED, SubmissionStatus.REJECTED)
        and id_ not in answered
        and not any(
            w in (note or "")
            for w in ("held back", "left out", "not answered", "source locked", "password again")
        )
    ]
    return {
        "not_stored": len(digests - stored),
        "unprocessed": status[SubmissionStatus.RECEIVED],
        "failed": status[SubmissionStatus.FAILED],
        "accepted": status[SubmissionStatus.ACCEPTED],
        "rejected": status[SubmissionStatus.REJECTED],
        "ignored": status[SubmissionStatus.IGNORED],
        "ignored_without_reason": sum(
            1 for _, _, s, note in rows if s == SubmissionStatus.IGNORED and not note
        ),
        "unanswered_without_reason": len(silent),
    }


# ---------------------------------------------------------------------------------------------
# 2. Attacks: each returns True when the attack succeeded


ATTACKS: dict[str, Callable[[World], bool]] = {}


def attack(name: str) -> Callable[[Callable[[World], bool]], Callable[[World], bool]]:
    def register(function: Callable[[World], bool]) -> Callable[[World], bool]:
        ATTACKS[name] = function
        return function

    return register


def _ingest(world: World, raw: bytes) -> SubmissionStatus | None:
    return world.app.ingest(raw, channel="bench")


@attack("amplification: 2,000 GAME lines")
def _amplification(world: World) -> bool:
    body = "\n".join(f"GAME g{i}\nGIVE 1 TO bob" for i in range(2000))
    _ingest(world, mail(body, sender="victim@example.net", subject="x"))
    return len(world.outbox()) > 1  # one answer, naming the sections left out


@attack("spoofed From, no password")
def _spoofed_from(world: World) -> bool:
    _ingest(world, mail("GIVE 3 TO bob"))
    return world.order_count() > 0


@attack("spoofed Reply-To of a player")
def _spoofed_reply_to(world: World) -> bool:
    _ingest(world, mail("GIVE 3 TO bob", sender="eve@evil.example", Reply_To="alice@example.org"))
    return world.order_count() > 0 or any(
        m.recipient == "alice@example.org" for m in world.outbox()
    )


@attack("display name holding a player's address")
def _display_name(world: World) -> bool:
    _ingest(world, mail("GIVE 3 TO bob", sender='"alice@example.org" <eve@evil.example>'))
    return world.order_count() > 0


@attack("another seat's password")
def _other_seat_password(world: World) -> bool:
    _ingest(world, mail(f"PASSWORD {world.creds['bob'].secret}\nGIVE 3 TO bob"))
    return world.order_count() > 0


@attack("a copy of the database reveals a password or a reply address")
def _password_at_rest(world: World) -> bool:
    """Whoever reads the database file (or a backup of it) looks for the passwords players
    wrote (in a PASSWORD line, a SET PASSWORD line, an HTML part in base64) and for the
    personal reply addresses they wrote to, which prove a seat by themselves."""
    token = world.creds["bob"].reply_token
    _ingest(world, mail("GIVE 3 TO carol", sender="bob@example.org", to=f"judge+{token}@pbem.test"))
    secret = world.creds["alice"].secret
    html = f"<p>PASSWORD {secret}</p><p>SET PASSWORD tulip-river-42</p><p>GIVE 3 TO bob</p>"
    message = message_from_bytes(
        mail(f"PASSWORD {secret}\nSET PASSWORD tulip-river-42\nGIVE 3 TO bob\n"),
        policy=policy.default,
    )
    assert isinstance(message, EmailMessage)
    message.add_alternative(html, subtype="html", cte="base64")
    _ingest(world, message.as_bytes())
    with Session(world.app.engine) as session:
        stored = [s.raw for s in session.exec(select(Submission))]
    readable = [_decoded_texts(raw) for raw in stored]
    found = (secret, "tulip-river-42", token)
    return any(word in text for texts in readable for text in texts for word in found)


def _decoded_texts(raw: bytes) -> list[str]:
    """Every leaf part of a stored mail, decoded as a reader of the file would."""
    texts = [raw.decode("latin-1")]
    for part in message_from_bytes(raw).walk():
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            texts.append(payload.decode("utf-8", "replace"))
    return texts


@attack("one game's token for another game")
def _other_game_token(world: World) -> bool:
    token = world.creds["alice"].reply_token
    _ingest(
        world,
        mail("GAME gw2\nGIVE 3 TO bob", sender="eve@evil.example", to=f"judge+{token}@pbem.test"),
    )
    return world.order_count() > 0


@attack("token and password after a replacement")
def _after_replacement(world: World) -> bool:
    old = world.creds["alice"]
    with session_scope(world.app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw1")).one()
        replace_player(
            session, game, "alice", "alice2@example.org", ctx=world.app.ctx, now=world.clock()
        )
    _ingest(world, mail("GIVE 3 TO bob", to=f"judge+{old.reply_token}@pbem.test", number=1))
    _ingest(world, mail(f"PASSWORD {old.secret}\nGIVE 3 TO carol", number=2))
    return world.order_count() > 0


def _reply_addresses(world: World, recipient: str) -> list[str]:
    """The Reply-To addresses of every mail queued to ``recipient`` so far."""
    found = []
    for sent in world.outbox():
        if sent.recipient == recipient:
            reply_to = message_from_bytes(sent.message)["Reply-To"]
            if reply_to:
                found.append(str(reply_to).strip("<> "))
    return found


def _old_address_keeps_seat(world: World, *, moved: Callable[[], None]) -> bool:
    """Whoever reads alice's old mailbox after her seat moved (``moved``) tries her password
    from there, her welcome's token address and the reply address of a mail she got there:
    the attack succeeds if any of them places an order. The real player, from the new
    address with her password, must still be taken (else the attack locked her out)."""
    old = world.creds["alice"]
    _ingest(world, mail(f"PASSWORD {old.secret}\nSTATUS", number=1))  # a mail kept there
    replied = _reply_addresses(world, old.address)
    moved()
    before = world.order_count()
    tries = [
        mail(f"PASSWORD {old.secret}\nGIVE 3 TO bob", number=10),
        mail("GIVE 3 TO bob", to=f"judge+{old.reply_token}@pbem.test", number=11),
        *(mail("GIVE 3 TO bob", to=r, number=12 + n) for n, r in enumerate(replied)),
    ]
    for n, raw in enumerate(tries):
        world.clock.now += timedelta(minutes=1 + n)
        _ingest(world, raw)
    if world.order_count() > before or not replied:
        return True
    legit = mail(f"PASSWORD {old.secret}\nGIVE 3 TO carol", sender=NEW_ADDRESS, number=30)
    return _ingest(world, legit) != SubmissionStatus.ACCEPTED


NEW_ADDRESS = "alice@new.example"


@attack("password and reply addresses after SET ADDRESS")
def _after_set_address(world: World) -> bool:
    secret = world.creds["alice"].secret

    def moved() -> None:
        code = address_code(world.app.ctx.receipt_key, "alice@example.org", NEW_ADDRESS)
        _ingest(world, mail(f"PASSWORD {secret}\nSET ADDRESS {NEW_ADDRESS} {code}", number=2))
        with Session(world.app.engine) as session:
            seats = session.exec(select(Seat).where(Seat.handle == "alice")).all()
            assert {s.address for s in seats} == {NEW_ADDRESS}, "the address did not change"

    return _old_address_keeps_seat(world, moved=moved)


@attack("password and reply addresses after `player address`")
def _after_player_address(world: World) -> bool:
    def moved() -> None:
        with session_scope(world.app.engine) as session:
            game = session.exec(select(Game).where(Game.name == "gw1")).one()
            change_address(
                session, game, "alice", NEW_ADDRESS, ctx=world.app.ctx, now=world.app.clock()
            )

    return _old_address_keeps_seat(world, moved=moved)


def _told(world: World) -> int:
    """Mails to alice: at most one of wrong passwords, one of a password not checked."""
    return len([m for m in world.outbox() if m.recipient == "alice@example.org"])


@attack("guessed passwords from one address: player told once of each")
def _guessing(world: World) -> bool:
    for n in range(20):
        _ingest(world, mail(f"PASSWORD guess{n}\nGIVE 3 TO bob", number=n))
    return world.order_count() > 0 or _told(world) > 2


@attack("guessed passwords from many hosts: player told once of each, guesses bounded")
def _guessing_from_many(world: World) -> bool:
    """A botnet: every host forges alice's From and tries a few passwords, fewer than one
    host's lockout. The real player must be told once an hour, not once a host; and the seat
    must take few guesses an hour in all, not a few per host."""
    hosts, each = 40, 4
    for host in range(hosts):
        for n in range(each):
            raw = f"Received: from h (h [203.0.113.{host}]) by mx.pbem.test\n".encode() + mail(
                f"PASSWORD guess{host}x{n}\nGIVE 3 TO bob", number=host * 100 + n
            )
            _ingest(world, raw)
    with Session(world.app.engine) as session:
        tried = sum(f.failures for f in session.exec(select(LoginFailure)))
    GUESSES["tried_by_many_hosts"] = tried
    return world.order_count() > 0 or _told(world) > 2 or tried > hosts * each // 2


GUESSES: dict[str, int] = {}


@attack("forged tries lock out the real player")
def _lockout(world: World) -> bool:
    for n in range(8):
        raw = b"Received: from x (x [203.0.113.66]) by mx.pbem.test\n" + mail(
            f"PASSWORD g{n}\nGIVE 3 TO bob", number=n
        )
        _ingest(world, raw)
    right = b"Received: from y (y [198.51.100.7]) by mx.pbem.test\n" + mail(
        f"PASSWORD {world.creds['alice'].secret}\nGIVE 3 TO carol", number=99
    )
    return _ingest(world, right) != SubmissionStatus.ACCEPTED


@attack("forged tries from one IPv6 /64 lock out the real player")
def _lockout_ipv6(world: World) -> bool:
    """One rented server holds a /64: its addresses are one host, not 2**64."""
    for host in range(1, 5):
        for n in range(5):
            raw = f"Received: from x (x [IPv6:2001:db8:66:1::{host}]) by mx.pbem.test\n".encode()
            _ingest(world, raw + mail(f"PASSWORD g{host}x{n}\nGIVE 3 TO bob", number=host * 10 + n))
    right = b"Received: from y (y [198.51.100.7]) by mx.pbem.test\n" + mail(
        f"PASSWORD {world.creds['alice'].secret}\nGIVE 3 TO carol", number=99
    )
    return _ingest(world, right) != SubmissionStatus.ACCEPTED


@attack("a right password refused during the seat's limit, not told")
def _unchecked_untold(world: World) -> bool:
    for host in range(5):
        for n in range(4):
            raw = f"Received: from h (h [203.0.113.{host}]) by mx.pbem.test\n".encode()
            _ingest(
                world, raw + mail(f"PASSWORD guess{host}x{n}\nGIVE 3 TO bob", number=host * 10 + n)
            )
    before = _told(world)
    right = b"Received: from y (y [198.51.100.7]) by mx.pbem.test\n" + mail(
        f"PASSWORD {world.creds['alice'].secret}\nGIVE 3 TO carol", number=99
    )
    refused = _ingest(world, right) != SubmissionStatus.ACCEPTED
    return refused and _told(world) == before


@attack("answers to HELP beside an address's budget of answers")
def _help_and_refusals(world: World) -> bool:
    """Refusals and answers to commands once had a budget each: 33 mails an hour to a
    stranger, 60 to a player's address."""
    for n in range(35):
        _ingest(world, mail("HELP", subject="help", sender="victim@example.net", number=n))
        _ingest(world, mail("HELP", subject="help", number=100 + n))
    for n in range(5):
        _ingest(world, mail("GIVE 3 TO bob", sender="victim@example.net", number=200 + n))
    for n in range(35):
        _ingest(world, mail("GIVE 3 TO bob", number=300 + n))
    count = Counter(m.recipient for m in world.outbox())
    return count["victim@example.net"] > 3 or count["alice@example.org"] > 30


@attack("old order mail dated -0000 after its round closed")
def _old_round_minus_0000(world: World) -> bool:
    """-0000 is UTC with the writer's zone unknown (RFC 5322 3.3); formatdate() writes it."""
    world.clock.now += timedelta(hours=2)
    secret = world.creds["alice"].secret
    old = mail(f"PASSWORD {secret}\nGIVE 3 TO bob", number=7, date=START - timedelta(days=1))
    old = old.replace(b" +0000\n", b" -0000\n", 1)
    _ingest(world, old)
    return world.order_count() > 0


@attack("replay with one more Received line")
def _replay(world: World) -> bool:
    secret = world.creds["alice"].secret
    first = mail(f"PASSWORD {secret}\nGIVE 3 TO bob", number=1)
    _ingest(world, first)
    _ingest(world, mail(f"PASSWORD {secret}\nGIVE 3 TO carol", number=2))
    _ingest(world, b"Received: from relay by mx; Mon, 2 Mar 2026 12:00:00 +0000\n" + first)
    return world.order_count() != 2


@attack("old order mail after its round closed")
def _old_round(world: World) -> bool:
    """Starship Combat: SHIELD is a valid order in round 1 and in round 2 alike."""
    with session_scope(world.app.engine) as session:
        game, credentials = create_game(
            session,
            name="sc1",
            kind="starship-combat",
            schedule="72h",
            settings={"early_close": False},
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob")],
            options={},
            now=world.clock(),
        )
        round_ = start_game(session, game, now=world.clock())
        assert round_.id is not None
        world.clock.now += timedelta(days=4)
        close_and_adjudicate(session, round_.id, ctx=world.app.ctx, now=world.clock(), force=True)
    before = world.order_count()
    old = mail(f"PASSWORD {credentials[0].secret}\nSHIELD", subject="[sc1] orders", number=5)
    _ingest(world, old)  # dated START, when round 1 was open
    return world.order_count() > before


@attack("forwarded old confirmation")
def _forwarded_confirmation(world: World) -> bool:
    body = "> Your orders for round 1 were stored:\n>   GIVE 3 TO bob\n> Receipt: ABCD-EF01\n"
    _ingest(world, mail(body, subject="Fwd: [gw1] Orders accepted"))
    return world.order_count() > 0


@attack("loop with a robot answering our answers")
def _loop(world: World) -> bool:
    last = "<first@example.org>"
    for n in range(40):
        _ingest(world, mail(f"I am away ({n}).", subject="Re: [gw1] x", In_Reply_To=last, number=n))
        world.clock.now += timedelta(seconds=15)
        mails = world.outbox()
        if mails:
            last = str(message_from_bytes(mails[-1].message)["Message-ID"])
    # Its first mail replies to none of ours; then LOOP_ANSWERS answers, and one notice.
    return len(world.outbox()) > 1 + LOOP_ANSWERS + 1


VACATION = (
    "Automatic reply",
    "Automatische Antwort",
    "Réponse automatique",
    "Respuesta automática",
    "Risposta automatica",
    "Automatisch antwoord",
    "Resposta automática",
    "Autosvar",
    "Automatisk svar",
    "Fravær",
    "Automaattinen vastaus",
    "Automatyczna odpowiedź",
    "Автоматический ответ",
    "自動応答",
    "自动回复",
    "Auto",
    "Vacation",
    "Out of Office",
    "Abwesenheitsnotiz",
    "Fuori sede",
    "Frånvaro",
    "Poza biurem",
    "Odpowiedź automatyczna",
    "自動返信",
    "Автоответ",
)


@attack("vacation notices in the common languages")
def _vacation(world: World) -> bool:
    for n, prefix in enumerate(VACATION):
        _ingest(
            world, mail("I am away.", subject=f"{prefix}: [gw1] orders", sender=f"v{n}@example.net")
        )
    _ingest(world, mail("Back on Monday.", subject="[gw1] I am away until Monday", number=1))
    return len(world.outbox()) > 0


@attack("orders under a vacation subject dropped")
def _orders_under_vacation_subject(world: World) -> bool:
    secret = world.creds["alice"].secret
    body = f"PASSWORD {secret}\nGIVE 3 TO bob\n"
    _ingest(world, mail(body, subject="[gw1] I am away until Monday"))
    return world.order_count() == 0


FLOOD = {"strangers": 400, "victim": 400}
"""Forged mails of the two floods (fewer in ``--short``: just past the limits)."""


@attack("forged mails from many addresses")
def _strangers(world: World) -> bool:
    for n in range(FLOOD["strangers"]):
        _ingest(world, mail("GIVE 3 TO bob", sender=f"s{n}@example.net", number=n))
    return len(world.outbox()) > STRANGERS_PER_HOUR


@attack("forged HELP from many addresses")
def _help_strangers(world: World) -> bool:
    """Commands answer without a seat: each forged HELP is a mail to whoever is in From."""
    for n in range(FLOOD["strangers"]):
        _ingest(world, mail("HELP", subject="help", sender=f"h{n}@example.net", number=n))
    return len(world.outbox()) > STRANGERS_PER_HOUR


@attack("forged mails naming one victim")
def _one_victim(world: World) -> bool:
    for n in range(FLOOD["victim"]):
        _ingest(world, mail("GIVE 3 TO bob", sender="victim@example.net", number=n))
    return len(world.outbox()) > 3


@attack("header injection through Message-ID, References, Subject")
def _header_injection(world: World) -> bool:
    bad = ("<a\x00b@x.org>", "<a\x0cb@x.org>", "<a\u2028b@x.org>", "<" + "x" * 5000 + "@x.org>")
    for n, value in enumerate(bad):
        raw = mail("GIVE 3 TO bob", sender=f"h{n}@example.net", subject="[gw1] INJECT", number=n)
        raw = raw.replace(b"INJECT", ("a\u2028Bcc: x@y.org", "a\rBcc: x@y.org")[n % 2].encode())
        raw = raw.replace(
            b"Message-ID:", f"In-Reply-To: {value}\nReferences: {value}\nMessage-ID:".encode(), 1
        )
        _ingest(world, raw)
    for sent in world.outbox():
        head = sent.message.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
        lines = head.split(b"\n")
        if any(len(line) > 998 for line in lines) or any(
            c in head for c in (b"\x00", b"\x0c", "\u2028".encode())
        ):
            return True
        if any(line.lower().startswith(b"bcc:") for line in lines):
            return True
    return False


HOSTILE_TEXT = (
    "x\rBcc: evil@evil.example\nTo: evil@evil.example\u2028Cc: evil@evil.example\u2029"
    "Subject: hi\x85Reply-To: evil@evil.example\x0b\x0c"
    "<script>alert(1)</script><img src=x onerror=alert(1)>&lt;b&gt; " + "L" * 4000
)
"""Player text meant to break out: every line break a mail or a browser knows, header lines,
markup, an entity, and a line far past SMTP's 998 bytes."""

_SEPARATORS = (b"\x00", b"\x0b", b"\x0c", "\u2028".encode(), "\u2029".encode(), "\x85".encode())
_INJECTED_HEADERS = (b"bcc:", b"cc:")


def _broken_mail(raw: bytes, recipient: str) -> str | None:
    """What is wrong with a mail we queued, if anything: a header line that player text made
    (Bcc, Cc, a second To or Subject), a recipient not the queued one, a line longer than
    998 bytes, a line separator or control character in the header, markup in an HTML part."""
    head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    lines = head.split(b"\n")
    names = [line.split(b":", 1)[0].lower() for line in lines if line[:1] not in (b" ", b"\t")]
    if any(name + b":" in _INJECTED_HEADERS for name in names):
        return "a Bcc or Cc header"
    for once in (b"to", b"from", b"subject", b"reply-to"):
        if names.count(once) > 1:
            return f"two {once.decode()} headers"
    if b"\r" in head or any(c in head for c in _SEPARATORS):
        return "a line separator or control character in the header"
    if any(len(line) > 998 for line in lines + body.split(b"\n")):
        return "a line longer than 998 bytes"
    message = message_from_bytes(raw, policy=policy.default)
    to = [a.addr_spec.lower() for a in message["To"].addresses] if message["To"] else []
    if to != [recipient.lower()]:
        return f"To is {to}, not {recipient}"
    for part in message.walk():
        if part.get_content_type() == "text/html":
            html = str(part.get_content()).lower()
            if "<script" in html or "<img src=x" in html:
                return "player markup in the HTML part"
    return None


def _broken_outbox(world: World) -> list[str]:
    return [
        f"{m.kind} to {m.recipient}: {why}"
        for m in world.outbox()
        if (why := _broken_mail(m.message, m.recipient)) is not None
    ]


def _broken_archive(world: World) -> list[str]:
    """Player markup that reached a page of the archive, or a feed that no longer parses."""
    out = world.folder / "archive"
    build_archive(world.app.engine, out, authority="pbem.test")
    found = []
    for path in out.rglob("*"):
        if path.suffix in (".html", ".xml", ".atom"):
            text = path.read_text(errors="replace").lower()
            if "<script>alert" in text or "<img src=x" in text:
                found.append(f"markup in {path.relative_to(out)}")
        if path.suffix in (".xml", ".atom"):
            try:
                ElementTree.parse(path)
            except ElementTree.ParseError as error:
                found.append(f"{path.relative_to(out)} does not parse: {error}")
    return found


INJECTION_FINDINGS: dict[str, list[str]] = {}
"""What each injection attack found, for the table."""


@attack("injection through press, order text and subjects into others' mails and the archive")
def _text_injection(world: World) -> bool:
    c = world.creds
    hostile = HOSTILE_TEXT
    subject = f"[gw1] {hostile[:300]}"
    press = f"PRESS\n{hostile}\nENDPRESS\nPRESS TO bob\n{hostile}\nENDPRESS"
    orders = f"GIVE 3 TO bob {hostile}\nGIVE 3 TO {hostile}\n{hostile}"
    for n, body in enumerate((press, orders)):
        raw = mail(f"PASSWORD {c['alice'].secret}\n{body}", subject="[gw1] S", number=n)
        _ingest(world, raw.replace(b"[gw1] S", subject.encode(), 1))  # raw CR, LF, U+2028
    for n, handle in enumerate(PLAYERS):
        world.clock.now += timedelta(minutes=1)
        other = PLAYERS[(n + 1) % 3]
        _ingest(
            world,
            mail(
                f"PASSWORD {c[handle].secret}\nGIVE 3 TO {other}",
                sender=f"{handle}@example.org",
                number=10 + n,
            ),
        )
    with session_scope(world.app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw1")).one()
        round_ = open_round_of(session, game)
        assert round_ is not None
        assert round_.id is not None
        world.clock.now += timedelta(days=4)
        close_and_adjudicate(session, round_.id, ctx=world.app.ctx, now=world.clock(), force=True)
    world.app.report()
    found = _broken_outbox(world) + _broken_archive(world)
    page = (world.folder / "archive" / "gw1" / "round-1.html").read_text()
    if "&lt;script&gt;alert(1)" not in page:
        found.append("the public press did not reach the archive: that part was not tried")
    kinds = {m.kind for m in world.outbox() if m.recipient != "alice@example.org"}
    if not {"press", "result"} <= kinds:
        found.append(f"the other players got no press or no result ({sorted(kinds)})")
    INJECTION_FINDINGS["text"] = found
    return bool(found)


@attack("injection through handles chosen at JOIN and made from addresses")
def _handle_injection(world: World) -> bool:
    with session_scope(world.app.engine) as session:
        create_game(
            session,
            name="su1",
            kind="sissyfight",
            schedule="72h",
            settings={"signup": 6},
            players=[PlayerSpec(p, f"{p}@example.com") for p in ("ann", "ben", "cat")],
            options={},
            now=world.clock(),
        )
    key = world.app.ctx.receipt_key
    wanted = ("x\rbcc: evil@evil.example", "<script>alert(1)</script>", "a\u2028b", "L" * 3000)
    for n, handle in enumerate(wanted):
        sender = f"j{n}@example.net"
        raw = mail(
            f"JOIN su1 {join_code(key, 'su1', sender)} NAME",
            subject="join",
            sender=sender,
            number=n,
        )
        _ingest(world, raw.replace(b"NAME", handle.encode(), 1))
    for n, local in enumerate(('"<script>alert(1)</script>"', '"a\\"bcc"', "x" * 60)):
        sender = f"{local}@example.net"
        raw = mail(
            f"JOIN su1 {join_code(key, 'su1', sender)}",
            subject="join",
            sender=f"p{n}@example.net",
            number=20 + n,
        )
        _ingest(world, raw.replace(f"p{n}@example.net".encode(), sender.encode(), 1))
    with Session(world.app.engine) as session:
        handles = [s.handle for s in session.exec(select(Seat))]
    found = [f"handle {h!r} taken" for h in handles if not HANDLE.match(h)]
    found += _broken_outbox(world) + _broken_archive(world)
    INJECTION_FINDINGS["handles"] = found
    return bool(found)


@attack("envelope injection through From (root>x@evil)")
def _envelope(world: World) -> bool:
    _ingest(world, mail("GIVE 3 TO bob", sender="root>x@evil.example"))
    return any(">" in m.recipient or "<" in m.recipient for m in world.outbox())


@attack("DKIM and SPF pass of another domain under require_auth")
def _unaligned(world: World) -> bool:
    with session_scope(world.app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw1")).one()
        game.settings = {**game.settings, "require_auth": ["dkim", "spf"]}
        session.add(game)
    results = "mx.pbem.test; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=e@evil.example"
    raw = mail(
        f"PASSWORD {world.creds['alice'].secret}\nGIVE 3 TO bob", Authentication_Results=results
    )
    return _ingest(world, raw) == SubmissionStatus.ACCEPTED


def attacks() -> dict[str, object]:
    outcome: dict[str, bool] = {}
    for name, run in ATTACKS.items():
        world = World.make()
        try:
            outcome[name] = run(world)
        finally:
            world.close()
    return {
        "tried": len(outcome),
        "succeeded": sum(outcome.values()),
        "succeeded_names": [name for name, won in outcome.items() if won],
        "each": outcome,
    }


# ---------------------------------------------------------------------------------------------


def _table(rows: Iterable[tuple[str, object]]) -> None:
    for label, value in rows:
        print(f"  {label:<48} {value}")


def _faults(args: argparse.Namespace, parts: set[str], figures: dict[str, object]) -> None:
    """The kills and the outages (bench/reliability_faults.py)."""
    if "kills" in parts:
        found = faults.kills(
            args.kills,
            args.kill_mails,
            args.kill_games,
            args.kill_rounds,
            args.seed,
            args.kill_window,
        )
        figures["kills"] = found
        print("serve killed with SIGKILL at random moments while rounds close")
        _table(found.items())
    if "outages" in parts:
        found = faults.outages(
            args.outages.split(","),
            seconds=args.outage_seconds,
            lock_seconds=args.lock_seconds,
            mails=args.outage_mails,
        )
        figures["outages"] = found
        for name, each in found.items():
            assert isinstance(each, dict)
            print(f"Outage: {faults.OUTAGES[name][0]}")
            _table(each.items())


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mails", type=int, default=100_000, help="hostile mails in-process")
    parser.add_argument(
        "--imap-mails", type=int, default=10_000, help="hostile mails through Dovecot (0: none)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--big-mb", default="10,50")
    parser.add_argument("--parts", default="hostile,attacks,time,kills,outages")
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--lock-seconds", type=float, default=15.0)
    parser.add_argument("--kill-mails", type=int, default=1000)
    parser.add_argument("--kill-games", type=int, default=50)
    parser.add_argument("--kill-rounds", type=int, default=100)
    parser.add_argument(
        "--kill-window", type=float, default=10.0, help="seconds of serving a life may last"
    )
    parser.add_argument("--outages", default=",".join(faults.OUTAGES))
    parser.add_argument("--outage-seconds", type=float, default=30.0)
    parser.add_argument("--outage-mails", type=int, default=30)
    parser.add_argument("--short", action="store_true", help="the test suite's quick run")
    return parser.parse_args()


def _hostile(
    run: Callable[[int, int, list[int], bool], dict[str, object]],
    count: int,
    seed: int,
    big: list[int],
    short: bool,
) -> dict[str, object]:
    found = run(count, seed, big, short)
    print(f"Hostile mail through the real intake ({found['through']}, SQLite)")
    _table((k, v) for k, v in found.items() if k not in ("kinds", "through"))
    print(f"  kinds: {found.get('kinds')}")
    return found


def _time() -> dict[str, object]:
    found = {"deadlines": deadlines(), "stopped_service": stopped_service()}
    print("Deadlines across DST changes and 29 February (the tests' clock, the sweeper)")
    _table(found["deadlines"].items())
    print("serve started 3 hours after a deadline passed while it was stopped")
    _table(found["stopped_service"].items())
    return dict(found)


def main() -> None:
    args = _arguments()
    big = [int(x) for x in args.big_mb.split(",") if x]
    parts = set(args.parts.split(","))
    if args.short:
        args.mails, args.imap_mails, big = 200, 100, [1]
        FLOOD.update(strangers=STRANGERS_PER_HOUR + 5, victim=10)
        args.kills, args.kill_mails, args.kill_games, args.kill_rounds = 3, 60, 5, 10
        args.kill_window = 3.0
        args.outage_seconds, args.outage_mails = 3.0, 9
        # a lock must outlast the 10 s busy timeout: too slow here
        args.outages = ",".join(name for name in args.outages.split(",") if name != "lock")
    figures: dict[str, object] = {"short": args.short, "seed": args.seed}
    if "hostile" in parts:
        figures["hostile"] = _hostile(hostile, args.mails, args.seed, big, args.short)
        if args.imap_mails:
            figures["hostile_imap"] = _hostile(
                hostile_imap, args.imap_mails, args.seed, big, args.short
            )
    if "attacks" in parts:
        found = attacks()
        figures["attacks"] = found
        print("Attacks")
        each = found["each"]
        assert isinstance(each, dict)
        _table((name, "SUCCEEDED" if won else "refused") for name, won in each.items())
        print(f"  tried {found['tried']}, succeeded {found['succeeded']}")
    if "time" in parts:
        figures["time"] = _time()
    _faults(args, parts, figures)
    figures["not_measured"] = []
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
