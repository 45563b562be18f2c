"""Mail intake end to end: order mails in a real Dovecot, answers at a real SMTP receiver.

Run: .venv/bin/python bench/intake.py [--mails 2000] [--games 100] [--latency 100]
     [--latency-mode spaced|sequential|both] [--auth password|token]
     [--database sqlite|pg] [--pg-admin URL] [--service process|thread]
     [--profile] [--experiment NAME]... (idle-recheck; both with --service thread)

1. Setup: a throwaway Dovecot and an aiosmtpd sink (tests/mailservers.py), a fresh SQLite
   database with ``--games`` Giveaway games (seats enough for one mail each; no welcome mails),
   and ``--mails`` valid order mails (``PASSWORD <secret>`` and GIVE lines adding up to the 3
   points held, in assorted accepted forms; some with quoted reply history, signatures, an HTML
   alternative, DKIM and Received headers; 1-4 KB, CRLF) placed in the INBOX with MULTIAPPEND
   before the service starts. ``--auth token`` sends them to the players' reply addresses
   (``judge+TOKEN@``) without a PASSWORD line instead. ``--database pg``: a fresh PostgreSQL
   database (made through ``--pg-admin``, dropped after) instead of the SQLite file.
2. Bulk: the service starts; timed until every mail is stored (Submission rows) and every
   confirmation was accepted by the sink. The mails fill every seat, so each game's round
   closes early as its last orders arrive: the service also adjudicates 100 rounds and sends
   their results (with pictures) meanwhile; the confirmations go first (answers before mails
   nobody waits for).
   - ``--service process`` (the default): as deployed, an ``adjudicate serve`` process (and the
     worker processes it starts), configured through the environment; the sink stays in this
     process, as an MTA is a process of its own.
   - ``--service thread``: ``adjudicator.serve.runner.Service`` in this process (IMAP IDLE poller
     thread, SMTP outbox on the event loop), sharing its interpreter lock with the sink. Where
     the time went is printed: wall-clock timers around the service's functions, per thread
     (nested lines are parts of the line above). ``--profile`` adds cProfile of the service's
     two threads (it slows the run: take the timed figures from a run without it).
3. Latency: with the service idle (in IDLE; in process mode: every mail processed and every
   queued mail sent, for a second), ``--latency`` more mails appended one at a time, ``spaced``
   (``--gap`` seconds apart, jittered +-33%) and ``sequential`` (each after the previous
   answer plus 0.05-0.3 s); append -> confirmation accepted by the sink: median, p90, p99
   (nearest rank), max. Dovecot tells an IDLE client of new mail 0.5 s after it arrived.
4. Floor, same run, service stopped: a bare imapclient FETCH BODY.PEEK[] of the same mails (one
   command) and a bare aiosmtplib send of the service's own confirmations over one connection
   to the same sink (in this process, in both modes); in process mode also the wait of a bare
   client in IDLE to hear of the same burst (the same MOVE -> EXISTS, median of 3), which the
   service's time counts too: Dovecot tells an IDLE client of a change 0.5 s after it, to
   gather the changes that follow, and no client can learn of the burst sooner. Ratio
   floor / service: 1.0 would mean the service is as fast as the bare client. The ratio of the
   transfers alone (without the notice: the floor of earlier figures) is printed beside it.
5. Peak memory: in process mode, the peak resident memory (VmHWM) of the service process and of
   each worker; in both modes ``ru_maxrss`` of this process, which holds the sink (with every
   mail it received), the generated mails and the floor's FETCH (and the service in thread
   mode).
6. CPU: in process mode, the CPU seconds the service process and its child processes used
   during the bulk (``/proc/PID/stat``): steadier from run to run than the wall-clock ratio on
   a machine doing other work.

``--experiment`` patches the service for the run only, to measure a change proposed for
adjudicator/ before anyone makes it (see ``EXPERIMENTS``).

The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import inspect
import io
import json
import math
import pstats
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import adjudicator.service.replies
import aiosmtplib
import imapclient
import sqlalchemy.orm
from deadline_burst import ADJUDICATE, children, cpu_s, database, nearest_rank, service_env
from mailservers import IMAP_PASSWORD, Dovecot, SmtpSink, running_dovecot, start_smtp_sink
from sqlalchemy import text
from sqlalchemy.engine import Engine

import adjudicator.mail.imap
import adjudicator.mail.smtp
import adjudicator.notify.outbox
import adjudicator.notify.queue
import adjudicator.serve.runner
import adjudicator.service.app
import adjudicator.service.authentication
import adjudicator.service.intake
from adjudicator.base.config import Config, ImapConfig, ServiceConfig, SmtpConfig
from adjudicator.mail.imap import ImapPoller
from adjudicator.serve.runner import Service
from adjudicator.service.app import App, make_app
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.games import PlayerSpec
from adjudicator.storage.db import session_scope

JUDGE = "judge@pbem.test"
HOLDING = 3  # Giveaway rule 2: every player starts round 1 with three points
APPEND_BATCH = 500
FETCH_BATCH = 50  # the poller's ImapSettings.batch_size
NAMES = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
    "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "ursula", "victor",
    "walter", "xavier", "yvonne", "zach", "amber", "boris", "chen", "dmitri", "eva",
)  # fmt: skip
SURNAMES = ("Smith", "Okafor", "Müller", "García", "Nakamura", "Kowalski", "Dubois", "Rossi")
ORDER_FORMS = (
    "GIVE {n} TO {p}",
    "GIVE {n} TO {p}",
    "give {n} to {p}",
    "Give {n} points to {p}.",
    "- GIVE {n} TO {p}",
    "* give {n} -> {p}",
    "{n} to {p}",
)
GREETINGS = ("Hi,", "Hello judge,", "Hi there,", "Morning!", "Here you go:", "")
CLOSINGS = ("Thanks!", "Cheers,", "Thanks, and good luck everyone.", "Best regards", "")
SIGNATURE_LINES = (
    "Sent from my iPhone",
    "Get Outlook for Android",
    "Senior Widget Engineer | Acme Corp",
    "+44 20 7946 0958",
    "https://example.org/~{handle}",
    "PGP: 0x4A3B 9C21 77DE 0F10",
)


# --- setup -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    game: str
    handle: str
    address: str
    name: str
    secret: str
    token: str
    others: tuple[str, ...]


def handles_for(count: int) -> list[str]:
    if count <= len(NAMES):
        return list(NAMES[:count])
    return [f"{NAMES[i % len(NAMES)]}{i // len(NAMES) or ''}" for i in range(count)]


def create_games(app: App, *, games: int, seats: int) -> list[list[Player]]:
    handles = handles_for(seats)
    result: list[list[Player]] = []
    for number in range(games):
        name = f"g{number:03d}"
        specs = [PlayerSpec(h, f"{h}.{name}@players.example") for h in handles]
        with session_scope(app.engine) as session:
            new = NewGame(name=name, kind="giveaway", schedule="72h", players=specs)
            _, credentials = set_up_game(
                session, new, ctx=app.ctx, now=app.clock(), welcome=False, tell_gm=False
            )
        result.append(
            [
                Player(
                    game=name,
                    handle=c.handle,
                    address=c.address,
                    name=f"{c.handle.capitalize()} {SURNAMES[i % len(SURNAMES)]}",
                    secret=c.secret,
                    token=c.reply_token,
                    others=tuple(h for h in handles if h != c.handle),
                )
                for i, c in enumerate(credentials)
            ]
        )
    return result


# --- the order mails ---------------------------------------------------------------------------


def gift_lines(player: Player, rng: random.Random) -> list[str]:
    amounts = rng.choice(([3], [2, 1], [1, 2], [1, 1, 1]))
    recipients = rng.sample(player.others, len(amounts))
    return [
        rng.choice(ORDER_FORMS).format(n=n, p=p if rng.random() < 0.8 else p.capitalize())
        for n, p in zip(amounts, recipients, strict=True)
    ]


def quoted_history(player: Player, rng: random.Random, sent: datetime) -> list[str]:
    """What a mail client quotes below a reply: our last mail to them."""
    before = sent - timedelta(hours=rng.randint(2, 40), minutes=rng.randint(0, 59))
    earlier = gift_lines(player, rng)
    quote = [
        f"Hello {player.handle},",
        "",
        f"your orders for game {player.game}, round 1, are stored as:",
        "",
        *(f"    {line.upper()}" for line in earlier),
        "",
        "You may send new orders any number of times before the deadline; the last valid set",
        "counts. Deadline: Thursday 06 March 2025, 09:00 UTC (UTC).",
        "",
        f"Receipt: {rng.randrange(16**16):016X}",
        "(quote it if you ever need to show what was stored)",
        "",
        "-- ",
        "Adjudicator, the play-by-email judge. Reply to this mail to send orders;",
        "write HELP for the commands and the rules of your game.",
    ]
    when = before.strftime("%a, %d %b %Y at %H:%M")
    return [f"On {when}, Adjudicator <{JUDGE}> wrote:", *(f"> {q}".rstrip() for q in quote)]


def signature(player: Player, rng: random.Random) -> list[str]:
    extra = rng.sample(SIGNATURE_LINES, rng.randint(1, 3))
    return ["-- ", player.name, *(line.format(handle=player.handle) for line in extra)]


def order_mail(
    player: Player, rng: random.Random, *, message_id: str, sent: datetime, token: bool
) -> bytes:
    """One valid order mail; with ``token`` it goes to the player's reply address (no
    PASSWORD line, no scrypt), else to the judge with ``PASSWORD <secret>``."""
    orders = gift_lines(player, rng)
    auth_lines = [] if token else [f"PASSWORD {player.secret}"]
    # A GAME line goes first: a greeting above it would be a section of its own (see the
    # report: it draws a refusal, as it has no PASSWORD).
    body = [f"GAME {player.game}"] if rng.random() < 0.1 else []
    body += [g for g in (rng.choice(GREETINGS),) if g]
    body += [*auth_lines, *orders]
    closing = rng.choice(CLOSINGS)
    if closing:
        body += ["", closing, player.name.split()[0]]
    quoted = rng.random() < 0.45
    if rng.random() < 0.35:
        body += ["", *signature(player, rng)]
    if quoted:
        history = quoted_history(player, rng, sent)
        # top-posted mostly; bottom-posted (quote first, orders below) now and then
        body = [*history, "", *body] if rng.random() < 0.15 else [*body, "", *history]
    text = "\n".join(body) + "\n"

    message = EmailMessage()
    for hop in range(rng.randint(1, 3)):
        message["Received"] = (
            f"from mx{hop}.players.example (mx{hop}.players.example [192.0.2.{10 + hop}]) "
            f"by mail.pbem.test with ESMTPS id {rng.randrange(16**12):012x} "
            f"for <{JUDGE}>; {format_datetime(sent)}"
        )
    if rng.random() < 0.5:
        message["DKIM-Signature"] = (
            "v=1; a=rsa-sha256; c=relaxed/relaxed; d=players.example; s=mail; "
            f"h=from:to:subject:date:message-id; bh={rng.randbytes(32).hex()}=; "
            f"b={rng.randbytes(128).hex()}"
        )
    message["From"] = f"{player.name} <{player.address}>"
    to = JUDGE.replace("@", f"+{player.token}@") if token else JUDGE
    message["To"] = f"Adjudicator <{to}>"
    tagged = rng.random() < 0.7
    message["Subject"] = (
        f"Re: [{player.game}] Orders received for round 1" if tagged else "my orders"
    )
    message["Date"] = format_datetime(sent)
    message["Message-ID"] = message_id
    if quoted:
        message["In-Reply-To"] = f"<confirm.{rng.randrange(10**9)}@pbem.test>"
    message["User-Agent"] = rng.choice(("Thunderbird/128.3.1", "Mutt/2.2.12", "Roundcube 1.6"))
    message.set_content(text)
    if rng.random() < 0.25:
        paragraphs = "".join(f"<div>{line or '<br>'}</div>\n" for line in body)
        message.add_alternative(
            f'<html><head><meta charset="utf-8"></head><body dir="ltr">\n{paragraphs}</body></html>'
        )
    return message.as_bytes(policy=SMTP)  # CRLF, as mail arrives over SMTP


def make_mails(
    players: list[Player], rng: random.Random, *, tag: str, start: datetime, token: bool
) -> list[tuple[Player, str, bytes]]:
    mails = []
    for index, player in enumerate(players):
        message_id = f"<{tag}.{index}.{rng.randrange(16**8):08x}@players.example>"
        sent = start + timedelta(seconds=index * 7)
        raw = order_mail(player, rng, message_id=message_id, sent=sent, token=token)
        mails.append((player, message_id, raw))
    return mails


def multiappend(dovecot: Dovecot, user: str, raws: list[bytes], folder: str = "INBOX") -> float:
    started = time.perf_counter()
    with dovecot.client(user) as client:
        if folder != "INBOX":
            client.create_folder(folder)
        for i in range(0, len(raws), APPEND_BATCH):
            client.multiappend(folder, raws[i : i + APPEND_BATCH])
    return time.perf_counter() - started


STAGING = "Staging"


def deliver_staged(dovecot: Dovecot, user: str) -> None:
    """Every mail of the staging folder into the INBOX at once (one MOVE)."""
    with dovecot.client(user) as client:
        client.select_folder(STAGING)
        client.move(client.search(["ALL"]), "INBOX")


# --- instruments -------------------------------------------------------------------------------


class Timers:
    """Wall-clock totals of wrapped functions, per thread name."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.total: dict[tuple[str, str], float] = defaultdict(float)
        self.calls: Counter[tuple[str, str]] = Counter()
        self.labels: list[str] = []
        self._undo: list[tuple[Any, str, Any]] = []

    def _add(self, label: str, seconds: float) -> None:
        key = (threading.current_thread().name, label)
        with self.lock:
            self.total[key] += seconds
            self.calls[key] += 1

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        if inspect.iscoroutinefunction(original):

            @functools.wraps(original)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await original(*args, **kwargs)
                finally:
                    self._add(label, time.perf_counter() - started)

            setattr(owner, name, timed_async)
        else:

            @functools.wraps(original)
            def timed(*args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return original(*args, **kwargs)
                finally:
                    self._add(label, time.perf_counter() - started)

            setattr(owner, name, timed)
        self._undo.append((owner, name, original))
        self.labels.append(label)

    def install(self) -> None:
        intake = adjudicator.service.intake
        self.wrap(imapclient.IMAPClient, "fetch", "imap fetch")
        self.wrap(adjudicator.service.app.App, "ingest", "ingest (store + process)")
        self.wrap(adjudicator.service.app.App, "ingest_batch", "ingest_batch (store + process)")
        self.wrap(adjudicator.service.app, "store_batch", "  store_batch")
        self.wrap(adjudicator.service.app, "process_batch", "  process_batch")
        self.wrap(intake, "read_whole", "    read_whole (parse, without a reader)")
        self.wrap(adjudicator.service.authentication, "verify_secret", "    verify_secret")
        self.wrap(adjudicator.notify.queue, "prepare_notice", "    prepare_notice (render)")
        self.wrap(ImapPoller, "_mark_handled", "imap mark handled")
        self.wrap(adjudicator.serve.runner, "send_due", "outbox send_due")
        self.wrap(adjudicator.notify.outbox, "claim_due", "  claim_due")
        self.wrap(adjudicator.mail.smtp.SmtpSender, "send", "  smtp send")
        self.wrap(adjudicator.notify.outbox, "record_results", "  record_results")
        self.wrap(adjudicator.notify.outbox, "_record", "  record + commit (thread)")
        self.wrap(sqlalchemy.orm.Session, "commit", "commit (any session; includes lock waits)")

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()

    def report(self, wall: float) -> dict[str, Any]:
        print(f"  where the time went (wall clock per thread; the run took {wall:.2f} s):")
        figures: dict[str, Any] = {}
        for thread in sorted({t for t, _ in self.total}):
            print(f"    thread {thread}:")
            for label in self.labels:
                seconds = self.total.get((thread, label), 0.0)
                calls = self.calls[(thread, label)]
                if not calls:
                    continue
                print(
                    f"      {label:<34} {seconds:8.2f} s {100 * seconds / wall:5.1f}%"
                    f"  {calls:6d} calls  {1000 * seconds / calls:7.2f} ms/call"
                )
                figures[f"{thread}: {label.strip()}"] = round(seconds, 3)
        return figures


class Profiles:
    """cProfile of the poller thread and the service's event-loop thread."""

    def __init__(self) -> None:
        self.profiles: dict[str, cProfile.Profile] = {}

    def run_in(self, name: str, target: Callable[[], None]) -> None:
        profile = self.profiles.setdefault(name, cProfile.Profile())
        profile.enable()
        try:
            target()
        finally:
            profile.disable()

    def installed(self) -> AbstractContextManager[None]:
        """The poller thread's loop runs under a profile of its own."""

        def make(original: Callable[..., None]) -> Callable[..., None]:
            def run_forever(poller: ImapPoller, stop_event: threading.Event | None = None) -> None:
                self.run_in("imap", lambda: original(poller, stop_event))

            return run_forever

        return patched(ImapPoller, "run_forever", make)

    def report(self, limit: int = 22) -> None:
        for name, profile in self.profiles.items():
            for order in ("tottime", "cumulative"):
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out)
                stats.strip_dirs().sort_stats(order).print_stats(limit)
                text = out.getvalue()
                start = text.find("   ncalls")
                print(f"\n  cProfile, thread {name}, by {order}:")
                print(text[start:].rstrip())


@contextmanager
def patched(owner: Any, name: str, make: Callable[[Any], Any]) -> Iterator[None]:
    """Replace ``owner.name`` by ``make(original)`` while the block runs."""
    original = getattr(owner, name)
    setattr(owner, name, make(original))
    try:
        yield
    finally:
        setattr(owner, name, original)


@contextmanager
def idle_recheck() -> Iterator[None]:
    """Experiment ``idle-recheck``: after a pass that handled mail, search again at once instead
    of entering IDLE. Dovecot reports a new message once, in the untagged EXISTS of whatever
    command is running when it arrives; when that is the poller's FETCH or STORE, imapclient
    keeps the EXISTS to itself, and the IDLE that follows hears nothing until poll_seconds."""
    handled: dict[int, int] = {}

    def counting(run_once: Callable[[ImapPoller], int]) -> Callable[[ImapPoller], int]:
        def counted(poller: ImapPoller) -> int:
            handled[id(poller)] = count = run_once(poller)
            return count

        return counted

    def rechecking(wait_for_news: Callable[[ImapPoller], None]) -> Callable[[ImapPoller], None]:
        def wait(poller: ImapPoller) -> None:
            if not handled.get(id(poller)):
                wait_for_news(poller)

        return wait

    with (
        patched(ImapPoller, "run_once", counting),
        patched(ImapPoller, "_wait_for_news", rechecking),
    ):
        yield


EXPERIMENTS = {
    "idle-recheck": idle_recheck,
}


# --- the service in a thread -------------------------------------------------------------------


@dataclass
class Running:
    """The service's main loop in a thread of its own (as tests/e2e/test_service_end_to_end)."""

    app: App
    profiles: Profiles | None = None
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.new_event_loop)
    service: Service | None = None
    poller: ImapPoller | None = None
    thread: threading.Thread | None = None

    def capturing_poller(self) -> AbstractContextManager[None]:
        """Keep the poller the service makes (to see when it sits in IDLE)."""

        def make(original: Callable[..., ImapPoller]) -> Callable[..., ImapPoller]:
            def capture(*args: Any) -> ImapPoller:
                self.poller = original(*args)
                return self.poller

            return capture

        return patched(adjudicator.serve.runner, "make_imap_poller", make)

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="loop", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self.service = Service(self.app)
            await self.service.run()

        if self.profiles is not None:
            self.profiles.run_in("loop", lambda: self.loop.run_until_complete(main()))
        else:
            self.loop.run_until_complete(main())

    def stop(self) -> None:
        if self.service is not None:
            self.loop.call_soon_threadsafe(self.service.stop.set)
        if self.thread is not None:
            self.thread.join(30)
        if not self.loop.is_running():
            self.loop.close()


class Served:
    """The service as it is deployed: an ``adjudicate serve`` process (and the worker processes
    it starts), configured through the environment, on the same database, Dovecot and sink."""

    def __init__(self, bench: Bench) -> None:
        self.bench = bench
        self.process: subprocess.Popen[bytes] | None = None
        self.peaks: dict[str, float] = {}

    def env(self) -> dict[str, str]:
        """The deadline bench's service environment, with this bench's address and IMAP."""
        bench = self.bench
        env = service_env(bench.base / "data", bench.database_url, bench.sink, workers=0)
        return env | {
            "ADJUDICATOR_ADDRESS": JUDGE,
            "ADJUDICATOR_IMAP_HOST": bench.dovecot.host,
            "ADJUDICATOR_IMAP_PORT": str(bench.dovecot.port),
            "ADJUDICATOR_IMAP_USERNAME": bench.user,
            "ADJUDICATOR_IMAP_PASSWORD": IMAP_PASSWORD,
            "ADJUDICATOR_IMAP_POLL_SECONDS": str(bench.args.poll_seconds),
        }

    def start(self) -> None:
        log = (self.bench.base / "service.log").open("wb")
        self.process = subprocess.Popen(
            [str(ADJUDICATE), "serve"], env=self.env(), stdout=log, stderr=subprocess.STDOUT
        )

    def wait_ready(self, *, timeout: float) -> None:
        """Until the service says it serves (its start-up pass done), and a second more for
        its IMAP reader to sit in IDLE."""
        log = self.bench.base / "service.log"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise SystemExit(f"the service ended at its start: see {log}")
            if b"deadlines planned; serving" in log.read_bytes():
                time.sleep(1.0)
                return
            time.sleep(0.05)
        raise SystemExit("the service did not start")

    def keep_peaks(self) -> None:
        """The peak resident memory (VmHWM) of the service and of each of its workers so far."""
        if self.process is None:
            return
        pids = [self.process.pid, *children(self.process.pid)]
        for n, pid in enumerate(pids):
            name = "service" if n == 0 else "worker"
            peak = _peak_mb(pid)
            if peak is not None:
                key = name if n == 0 else f"{name}_{pid}"
                self.peaks[key] = max(self.peaks.get(key, 0.0), peak)

    def cpu(self) -> dict[str, float]:
        """CPU seconds (user and system) used so far by the service process and by its child
        processes together."""
        if self.process is None:
            return {}
        used = {"service": cpu_s(self.process.pid) or 0.0, "workers": 0.0}
        for pid in children(self.process.pid):
            used["workers"] += cpu_s(pid) or 0.0
        return used

    def stop(self) -> None:
        if self.process is None:
            return
        self.keep_peaks()
        self.process.terminate()
        self.process.wait(60)


def _peak_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) / 1024 if found else None


class Arrivals:
    """When the sink accepted each message, by its In-Reply-To (patched into the handler)."""

    HOOK = "handle_DATA"
    IN_REPLY_TO = re.compile(rb"^In-Reply-To:\s*(<[^>\r\n]+>)", re.MULTILINE | re.IGNORECASE)

    def __init__(self, sink: SmtpSink) -> None:
        self.lock = threading.Lock()
        self.times: dict[str, float] = {}
        original = sink.handler.handle_DATA

        async def handle_data(server: Any, session: Any, envelope: Any) -> str:
            reply: str = await original(server, session, envelope)
            if reply.startswith("250"):
                found = self.IN_REPLY_TO.search(bytes(envelope.original_content or b""))
                if found:
                    with self.lock:
                        self.times.setdefault(found.group(1).decode(), time.monotonic())
            return reply

        # aiosmtpd looks the hooks up on the handler once per connection: patch before any.
        setattr(sink.handler, self.HOOK, handle_data)

    def count(self, ids: set[str]) -> int:
        with self.lock:
            return len(ids & self.times.keys())

    def last(self, ids: set[str]) -> float:
        with self.lock:
            return max(self.times[i] for i in ids if i in self.times)


def stored_count(db: Engine) -> int:
    with db.connect() as connection:
        return int(connection.execute(text("SELECT count(*) FROM submission")).scalar_one())


def statuses(db: Engine) -> dict[str, Any]:
    with db.connect() as connection:
        submissions: dict[str, int] = dict(
            connection.execute(text("SELECT status, count(*) FROM submission GROUP BY 1")).all()
        )
        outbox = {
            f"{kind}/{status}": n
            for kind, status, n in connection.execute(
                text("SELECT kind, status, count(*) FROM outboxmail GROUP BY 1, 2")
            )
        }
        notes = [
            n
            for (n,) in connection.execute(
                text("SELECT note FROM submission WHERE note IS NOT NULL")
            )
        ]
    return {"submissions": submissions, "outbox": outbox, "notes": Counter(notes).most_common(5)}


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- the phases --------------------------------------------------------------------------------

Mail = tuple[Player, str, bytes]  # who sent it, its Message-ID, its bytes


@dataclass
class Bench:
    args: argparse.Namespace
    dovecot: Dovecot
    sink: SmtpSink
    arrivals: Arrivals
    base: Path
    rng: random.Random
    figures: dict[str, Any]
    user: str = ""
    database_url: str = ""
    """Empty: SQLite in the data folder."""


def make_config(bench: Bench) -> Config:
    return Config(
        service=ServiceConfig(
            data_dir=str(bench.base / "data"), database_url=bench.database_url, address=JUDGE
        ),
        smtp=SmtpConfig(host=bench.sink.host, port=bench.sink.port),
        imap=ImapConfig(
            host=bench.dovecot.host,
            port=bench.dovecot.port,
            username=bench.user,
            password=IMAP_PASSWORD,
            poll_seconds=bench.args.poll_seconds,
        ),
    )


def setup(bench: Bench, app: App) -> tuple[list[Mail], list[Mail]]:
    """Games in the database, the bulk mails in the INBOX; the latency mails to send later."""
    args, rng, figures = bench.args, bench.rng, bench.figures
    seats = figures["seats_per_game"]
    started = time.perf_counter()
    players = [p for game in create_games(app, games=args.games, seats=seats) for p in game]
    figures["setup_games_s"] = time.perf_counter() - started
    rng.shuffle(players)
    now, token = datetime.now(UTC), args.auth == "token"
    bulk_mails = make_mails(players[: args.mails], rng, tag="bulk", start=now, token=token)
    late = [players[i % len(players)] for i in range(2 * args.latency)]
    later = now + timedelta(hours=1)
    latency_mails = make_mails(late, rng, tag="late", start=later, token=token)
    sizes = [len(raw) for _, _, raw in bulk_mails]
    figures["mail_bytes_mean"] = statistics.mean(sizes)
    figures["mail_bytes_max"] = max(sizes)
    print(
        f"setup: {args.games} games x {seats} seats in {figures['setup_games_s']:.1f} s;"
        f" {args.mails} mails (mean {figures['mail_bytes_mean']:.0f} B, max"
        f" {figures['mail_bytes_max']} B)"
    )
    return bulk_mails, latency_mails


def append_bulk(bench: Bench, bulk_mails: list[Mail], folder: str = "INBOX") -> None:
    raws = [r for *_, r in bulk_mails]
    seconds = multiappend(bench.dovecot, bench.user, raws, folder)
    bench.figures["multiappend_s"] = seconds
    print(f"{len(raws)} mails MULTIAPPENDed to {folder} in {seconds:.2f} s")


def bulk(
    start: Callable[[], None], arrivals: Arrivals, db: Engine, ids: set[str], *, timeout: float
) -> dict[str, float]:
    """Start the service; time until every mail is stored and every answer was accepted."""
    started = time.monotonic()
    start()
    stored_at = first_at = None
    deadline = started + timeout
    while time.monotonic() < deadline:
        if stored_at is None and stored_count(db) >= len(ids):
            stored_at = time.monotonic()
        answered = arrivals.count(ids)
        if first_at is None and answered:
            first_at = time.monotonic()
        if stored_at is not None and answered >= len(ids):
            break
        time.sleep(0.05)
    else:
        raise SystemExit(
            f"timeout: {stored_count(db)} stored, {arrivals.count(ids)} confirmed of {len(ids)}"
        )
    done = arrivals.last(ids)
    return {
        "service_s": done - started,
        "stored_s": stored_at - started,
        "first_confirmation_s": (first_at or done) - started,
    }


def wait_quiet(db: Engine, *, timeout: float) -> None:
    """Until every mail stored is processed and every mail queued is sent, for a second (the
    service out of reach in its own process: it is then back in IDLE, with nothing to do)."""
    query = text(
        "SELECT (SELECT count(*) FROM submission WHERE status = 'received')"
        " + (SELECT count(*) FROM outboxmail WHERE status = 'pending')"
    )
    deadline, quiet_since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        with db.connect() as connection:
            busy = int(connection.execute(query).scalar_one())
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= 1.0:
            return
        time.sleep(0.05)
    raise SystemExit("the service did not go quiet")


def wait_idle(running: Running, *, timeout: float) -> None:
    """Until the poller sits in IDLE (twice, a second apart: the outbox loop settles too)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running.poller is not None and running.poller.idling.is_set():
            time.sleep(1.0)
            if running.poller.idling.is_set():
                return
        time.sleep(0.05)
    raise SystemExit("the service did not go idle")


def latency(bench: Bench, mails: list[Mail], *, sequential: bool, timeout: float) -> dict[str, Any]:
    """Append the mails one at a time: ``gap`` apart, or each after the previous answer (and a
    pause of 0.05-0.3 s, as players do not send on the server's cue); append -> answer."""
    appended: dict[str, float] = {}
    arrivals, gap = bench.arrivals, bench.args.gap
    with bench.dovecot.client(bench.user) as client:
        for _, message_id, raw in mails:
            appended[message_id] = time.monotonic()
            client.append("INBOX", raw)
            if not sequential:
                time.sleep(gap * bench.rng.uniform(0.67, 1.33))
                continue
            deadline = time.monotonic() + timeout
            while not arrivals.count({message_id}) and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(bench.rng.uniform(0.05, 0.3))
    ids = set(appended)
    deadline = time.monotonic() + timeout
    while arrivals.count(ids) < len(ids) and time.monotonic() < deadline:
        time.sleep(0.05)
    with arrivals.lock:
        delays = sorted(arrivals.times[i] - appended[i] for i in ids if i in arrivals.times)
    missing = len(ids) - len(delays)
    if not delays:
        return {"answered": 0, "missing": missing}

    return {
        "answered": len(delays),
        "missing": missing,
        "median_s": statistics.median(delays),
        "p90_s": nearest_rank(delays, 0.9),
        "p99_s": nearest_rank(delays, 0.99),
        "max_s": delays[-1],
        "min_s": delays[0],
        "over_2s": sum(d > 2 for d in delays),
    }


def run_service(bench: Bench, app: App, bulk_mails: list[Mail], latency_mails: list[Mail]) -> None:
    """The bulk and latency phases, the service in this process (``--service thread``: where the
    time went, profiles and experiments) or in its own (``--service process``, as deployed)."""
    args, figures = bench.args, bench.figures
    db = app.engine
    figures["maxrss_before_service_mb"] = maxrss_mb()
    ids = {message_id for _, message_id, _ in bulk_mails}
    with ExitStack() as stack:  # undone in reverse: stop the service, then remove the patches
        stack.callback(app.engine.dispose)
        if args.service == "process":
            # Started first and waited for: a burst of mail reaches a running service, and the
            # process's start (its imports) is not counted. The mails wait in another
            # folder, then are moved into the INBOX in one command.
            served = Served(bench)
            stack.callback(lambda: figures.update(service_peak_mb=served.peaks))
            stack.callback(served.stop)
            append_bulk(bench, bulk_mails, STAGING)
            served.start()
            served.wait_ready(timeout=120)

            def deliver() -> None:
                deliver_staged(bench.dovecot, bench.user)

            before = served.cpu()
            figures |= bulk(deliver, bench.arrivals, db, ids, timeout=args.timeout)
            after = served.cpu()
            figures["bulk_cpu_s"] = {k: round(after[k] - before.get(k, 0.0), 2) for k in after}
            report_bulk(bench)
            cpu = figures["bulk_cpu_s"]
            print(
                f"CPU during the bulk: service process {cpu['service']:.2f} s "
                f"({1000 * cpu['service'] / len(bulk_mails):.2f} ms a mail), "
                f"its child processes {cpu['workers']:.2f} s"
            )
            served.keep_peaks()
            latency_phases(bench, latency_mails, lambda: wait_quiet(db, timeout=120))
        else:
            timers, profiles = Timers(), Profiles() if args.profile else None
            running = Running(app, profiles=profiles)
            if profiles is not None:
                stack.enter_context(profiles.installed())
            stack.enter_context(running.capturing_poller())
            stack.callback(timers.uninstall)
            timers.install()
            stack.callback(running.stop)
            append_bulk(bench, bulk_mails)  # before the start: the start-up pass reads them
            figures |= bulk(running.start, bench.arrivals, db, ids, timeout=args.timeout)
            report_bulk(bench)
            figures["breakdown"] = timers.report(figures["service_s"])
            timers.uninstall()
            latency_phases(bench, latency_mails, lambda: wait_idle(running, timeout=60))
        figures["maxrss_after_bulk_mb"] = maxrss_mb()
    figures["maxrss_service_mb"] = maxrss_mb()
    figures["outcome"] = statuses(db)
    print(f"outcome: {figures['outcome']}")
    if args.service == "process":
        peaks = figures["service_peak_mb"]
        workers = [v for k, v in peaks.items() if k != "service"]
        print(
            f"memory of the service: peak RSS {peaks.get('service', 0):.0f} MB"
            + (
                f", its {len(workers)} child processes {max(workers):.0f} MB at most"
                if workers
                else ""
            )
        )
    elif profiles is not None:
        profiles.report()


def report_bulk(bench: Bench) -> None:
    args, figures = bench.args, bench.figures
    service_s = figures["service_s"]
    print(
        f"service ({args.service}): {args.mails} stored in {figures['stored_s']:.2f} s, all"
        f" confirmations accepted by the sink in {service_s:.2f} s"
        f" ({args.mails / service_s:.0f} mail/s; first answer after"
        f" {figures['first_confirmation_s']:.2f} s)"
    )


def latency_phases(bench: Bench, latency_mails: list[Mail], wait: Callable[[], None]) -> None:
    args, figures = bench.args, bench.figures
    halves = {"spaced": latency_mails[: args.latency], "sequential": latency_mails[args.latency :]}
    for mode, mails in halves.items():
        if not mails or args.latency_mode not in (mode, "both"):
            continue
        wait()
        timeout = max(30.0, 2.0 * args.poll_seconds)
        lat = latency(bench, mails, sequential=mode == "sequential", timeout=timeout)
        figures[f"latency_{mode}"] = lat
        how = f"{args.gap:.2f} s apart" if mode == "spaced" else "each after the last answer"
        if not lat["answered"]:
            print(f"latency ({mode}): none of {len(mails)} mails was answered")
            continue
        print(
            f"latency ({mode}): {lat['answered']} mails {how}: append -> confirmation"
            f" median {lat['median_s']:.3f} s, p90 {lat['p90_s']:.3f} s, p99"
            f" {lat['p99_s']:.3f} s, max {lat['max_s']:.3f} s, min {lat['min_s']:.3f} s;"
            f" {lat['over_2s']} over 2 s, {lat['missing']} unanswered"
        )


def floor_fetch(dovecot: Dovecot, user: str, count: int, sizes: list[int]) -> dict[str, float]:
    with dovecot.client(user) as client:
        client.select_folder("INBOX", readonly=True)
        uids = sorted(client.search(["ALL"]))[:count]
        started = time.perf_counter()
        fetched = client.fetch(uids, [b"BODY.PEEK[]"])
        whole = time.perf_counter() - started
        got = sorted(len(fetched[u][b"BODY[]"]) for u in uids)
        if got != sorted(sizes):
            raise SystemExit("the floor FETCH did not return the mails that were appended")
        del fetched
        started = time.perf_counter()
        for i in range(0, len(uids), FETCH_BATCH):
            client.fetch(uids[i : i + FETCH_BATCH], [b"BODY.PEEK[]"])
        batched = time.perf_counter() - started
    return {"floor_fetch_s": whole, "floor_fetch_batched_s": batched}


def floor_notice(dovecot: Dovecot, user: str, count: int, *, repeat: int = 3) -> float:
    """What a bare IMAP client in IDLE waits to hear of the same burst, as the service did:
    ``count`` mails moved from the staging folder into the INBOX (``deliver_staged``, the same
    command) -> the server's EXISTS (median of ``repeat``). Dovecot tells an IDLE client of a
    change 0.5 s after it happened, to gather the changes that follow; the service's time
    counts this wait too."""
    waits = []
    with dovecot.client(user) as mover, dovecot.client(user) as watcher:
        for _ in range(repeat):
            mover.select_folder("INBOX")
            mover.move(sorted(mover.search(["ALL"]))[:count], STAGING)
            mover.unselect_folder()
            watcher.select_folder("INBOX", readonly=True)  # after the move: nothing pending
            watcher.idle()
            started = time.perf_counter()
            deliver_staged(dovecot, user)
            heard = None
            while heard is None and time.perf_counter() - started < 30:
                for response in watcher.idle_check(timeout=1):
                    if len(response) > 1 and response[1] == b"EXISTS":
                        heard = time.perf_counter() - started
            watcher.idle_done()
            watcher.unselect_folder()
            if heard is None:
                raise SystemExit("a bare IDLE client did not hear of the burst within 30 s")
            waits.append(heard)
    return statistics.median(waits)


def floor_send(sink: SmtpSink, messages: list[tuple[str, tuple[str, ...], bytes]]) -> float:
    async def send_all() -> float:
        async with aiosmtplib.SMTP(hostname=sink.host, port=sink.port) as smtp:
            started = time.perf_counter()
            for sender, recipients, content in messages:
                await smtp.sendmail(sender, list(recipients), content)
            return time.perf_counter() - started

    return asyncio.run(send_all())


def run_floor(bench: Bench, bulk_mails: list[Mail]) -> None:
    """The same transfers without the service: FETCH the mails, send the service's answers."""
    figures, count = bench.figures, len(bulk_mails)
    ids = {message_id for _, message_id, _ in bulk_mails}
    fetched = floor_fetch(bench.dovecot, bench.user, count, [len(r) for *_, r in bulk_mails])
    answers = [
        (r.mail_from, r.rcpt_tos, r.content)
        for r in bench.sink.received
        if (m := Arrivals.IN_REPLY_TO.search(r.content)) and m.group(1).decode() in ids
    ]
    send_s = floor_send(bench.sink, answers)
    # The service heard of the burst in IDLE (process mode); in thread mode it was waiting in
    # the INBOX when the service started, and read at once.
    staged = bench.args.service == "process"
    notice_s = floor_notice(bench.dovecot, bench.user, count) if staged else 0.0
    transfers_s = fetched["floor_fetch_s"] + send_s
    floor_s = notice_s + transfers_s
    figures |= fetched
    figures |= {
        "floor_notice_s": notice_s,
        "floor_send_s": send_s,
        "floor_s": floor_s,
        "floor_over_service": floor_s / figures["service_s"],
        "transfers_over_service": transfers_s / figures["service_s"],
        "confirmation_bytes_mean": statistics.mean(len(c) for *_, c in answers),
    }
    heard = f"IDLE notice of the burst {notice_s:.3f} s + " if staged else ""
    print(
        f"floor: {heard}bare FETCH of {count} in {fetched['floor_fetch_s']:.3f} s"
        f" (batches of {FETCH_BATCH}: {fetched['floor_fetch_batched_s']:.3f} s) + bare send of"
        f" {len(answers)} confirmations (mean {figures['confirmation_bytes_mean']:.0f} B) over"
        f" one connection in {send_s:.2f} s = {floor_s:.2f} s;"
        f" floor / service = {figures['floor_over_service']:.3f}"
        f" (the transfers alone: {figures['transfers_over_service']:.3f})"
    )


# --- main --------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=2000, help="order mails in the bulk phase")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--latency", type=int, default=100, help="mails per latency phase")
    parser.add_argument("--latency-mode", choices=("spaced", "sequential", "both"), default="both")
    parser.add_argument("--gap", type=float, default=0.15, help="seconds between spaced mails")
    parser.add_argument("--poll-seconds", type=int, default=ImapConfig().poll_seconds)
    parser.add_argument(
        "--auth",
        choices=("password", "token"),
        default="password",
        help="PASSWORD lines, or the players' orders+TOKEN@ reply addresses",
    )
    parser.add_argument(
        "--experiment",
        action="append",
        choices=sorted(EXPERIMENTS),
        default=[],
        help="patch the service for this run only, to measure a proposed change",
    )
    parser.add_argument(
        "--database", choices=("sqlite", "pg"), default="sqlite", help="the service's database"
    )
    parser.add_argument(
        "--pg-admin", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument(
        "--service",
        choices=("process", "thread"),
        default="process",
        help="the service as deployed (adjudicate serve), or in this process (where the time"
        " went; needed by --profile and --experiment)",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the service threads")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    if args.service == "process" and (args.profile or args.experiment):
        parser.error("--profile and --experiment need --service thread")
    return args


def main() -> None:
    args = parse_args()
    figures: dict[str, Any] = {
        "mails": args.mails,
        "games": args.games,
        "seats_per_game": max(3, math.ceil(args.mails / args.games)),
        "auth": args.auth,
        "database": args.database,
        "experiments": args.experiment,
        "poll_seconds": args.poll_seconds,
        "service": args.service,
    }
    base = Path(tempfile.mkdtemp(prefix="adjudicator-bench-"))
    sink = start_smtp_sink()
    arrivals = Arrivals(sink)
    try:
        with running_dovecot() as dovecot, ExitStack() as patches:
            for name in args.experiment:
                patches.enter_context(EXPERIMENTS[name]())
            bench = Bench(args, dovecot, sink, arrivals, base, random.Random(args.seed), figures)
            if args.database == "pg":
                bench.database_url = patches.enter_context(database("pg", base, args.pg_admin))
            bench.user = dovecot.new_user("judge")
            app = make_app(make_config(bench))
            bulk_mails, latency_mails = setup(bench, app)
            run_service(bench, app, bulk_mails, latency_mails)
            run_floor(bench, bulk_mails)
    finally:
        sink.stop()
        shutil.rmtree(base, ignore_errors=True)
    figures["maxrss_mb"] = maxrss_mb()
    print(
        f"memory: peak RSS {figures['maxrss_mb']:.0f} MB (before the service"
        f" {figures['maxrss_before_service_mb']:.0f} MB, after the bulk phase"
        f" {figures['maxrss_after_bulk_mb']:.0f} MB, service stopped"
        f" {figures['maxrss_service_mb']:.0f} MB)"
    )
    print(json.dumps(figures, default=str, sort_keys=True))


if __name__ == "__main__":
    main()
