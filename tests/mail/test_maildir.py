"""Maildir delivery and reading, on real folders."""

from __future__ import annotations

import os
import re
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from adjudicator.mail.maildir import (
    BATCH,
    MaildirReader,
    arrival_time,
    deliver,
    flags_of,
    with_flag,
)


def message(n: int) -> bytes:
    return f"Subject: orders {n}\n\nA PAR - BUR ({n})\n".encode()


class Inbox:
    """A ``handle_batch`` that keeps what it was handed."""

    def __init__(self) -> None:
        self.raws: list[bytes] = []
        self.arrived: list[datetime] = []

    def __call__(self, raws: list[bytes], arrived: list[datetime]) -> None:
        self.raws += raws
        self.arrived += arrived


def listing(maildir: Path, sub: str) -> list[str]:
    return sorted(os.listdir(maildir / sub))


def test_deliver_writes_through_tmp_into_new(maildir: Path) -> None:
    paths = [deliver(maildir, message(n)) for n in range(3)]
    assert listing(maildir, "tmp") == []
    assert listing(maildir, "cur") == []
    assert [p.parent for p in paths] == [maildir / "new"] * 3
    assert len({p.name for p in paths}) == 3  # unique names, even within one microsecond
    assert [p.read_bytes() for p in paths] == [message(n) for n in range(3)]
    assert all(":" not in p.name for p in paths)


def test_reading_hands_over_new_mail_once_and_marks_it_seen(maildir: Path) -> None:
    paths = [deliver(maildir, message(n)) for n in range(3)]
    names = [path.name for path in paths]
    inbox = Inbox()
    reader = MaildirReader(maildir, handle_batch=inbox)
    assert reader.run_once() == 3
    assert inbox.raws == [message(n) for n in range(3)]  # in delivery order
    assert inbox.arrived == [arrival_time(path) for path in paths]
    assert listing(maildir, "new") == []
    assert listing(maildir, "cur") == sorted(f"{name}:2,S" for name in names)
    assert reader.run_once() == 0
    assert len(inbox.raws) == 3


def test_unread_mail_in_cur_is_read_and_seen_mail_is_not(maildir: Path) -> None:
    """A mail client may move mail to cur/ without reading it (flag F only): still ours."""
    deliver(maildir, b"x")  # creates the folders
    (maildir / "new").joinpath(os.listdir(maildir / "new")[0]).unlink()
    (maildir / "cur" / "1.a.host:2,F").write_bytes(message(1))
    (maildir / "cur" / "2.b.host:2,S").write_bytes(message(2))
    (maildir / "cur" / "3.c.host").write_bytes(message(3))  # no info part at all
    inbox = Inbox()
    assert MaildirReader(maildir, handle_batch=inbox).run_once() == 2
    assert inbox.raws == [message(1), message(3)]
    assert listing(maildir, "cur") == ["1.a.host:2,FS", "2.b.host:2,S", "3.c.host:2,S"]


def test_files_vanishing_underneath_are_skipped(
    maildir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another reader takes a file between our listing and our read, or between our read
    and our rename: neither is an error."""
    paths = [deliver(maildir, message(n)) for n in range(3)]
    inbox = Inbox()
    read = Path.read_bytes

    def taken_first(path: Path) -> bytes:
        if path == paths[1]:
            path.unlink()  # listed, then taken before our read: skipped
        return read(path)

    def meddling(raws: list[bytes], arrived: list[datetime]) -> None:
        inbox(raws, arrived)
        paths[0].unlink()  # read, not yet renamed: counted, nothing to rename

    monkeypatch.setattr(Path, "read_bytes", taken_first)
    assert MaildirReader(maildir, handle_batch=meddling).run_once() == 2
    assert inbox.raws == [message(0), message(2)]
    assert listing(maildir, "cur") == [f"{paths[2].name}:2,S"]


def test_dot_files_are_ignored_and_missing_folders_created(tmp_path: Path) -> None:
    maildir = tmp_path / "fresh"
    inbox = Inbox()
    assert MaildirReader(maildir, handle_batch=inbox).run_once() == 0
    assert sorted(os.listdir(maildir)) == ["cur", "new", "tmp"]
    (maildir / "new" / ".hidden").write_bytes(b"x")
    assert MaildirReader(maildir, handle_batch=inbox).run_once() == 0


@pytest.mark.parametrize(
    ("name", "flags", "seen"),
    [
        ("123.M4P5.host", "", "123.M4P5.host:2,S"),
        ("123.M4P5.host:2,", "", "123.M4P5.host:2,S"),
        ("123.M4P5.host:2,FR", "FR", "123.M4P5.host:2,FRS"),
        ("123.M4P5.host:2,ST", "ST", "123.M4P5.host:2,ST"),
        ("123.M4P5.host:2,a", "a", "123.M4P5.host:2,Sa"),  # Dovecot keyword letters sort last
    ],
)
def test_info_flags(name: str, flags: str, seen: str) -> None:
    assert flags_of(name) == flags
    assert with_flag(name, "S") == seen


def test_run_forever_polls_until_stopped(maildir: Path) -> None:
    inbox = Inbox()
    reader = MaildirReader(maildir, handle_batch=inbox)
    thread = threading.Thread(target=reader.run_forever, kwargs={"poll_seconds": 0.05})
    thread.start()
    try:
        deliver(maildir, message(1))
        deadline = time.monotonic() + 30
        while not inbox.raws and time.monotonic() < deadline:
            time.sleep(0.02)
        assert inbox.raws == [message(1)]
    finally:
        reader.stop()
        thread.join(2)
    assert not thread.is_alive()


def test_mail_is_handled_in_arrival_order_by_the_numbers_in_its_name(maildir: Path) -> None:
    """Two order mails sent quickly: the one delivered at .099999 s came before the one at
    .100000 s and must be handled first (as text, "M99999" sorts after "M100000"). Dovecot's
    LDA writes the microseconds unpadded, so the reader must compare them as numbers."""
    deliver(maildir, b"x")  # creates the folders
    for name in os.listdir(maildir / "new"):
        (maildir / "new" / name).unlink()
    later = "1700000000.M100000P7Q2.host"
    earlier = "1700000000.M99999P7Q1.host"
    (maildir / "new" / later).write_bytes(message(2))  # written first, arrived later
    (maildir / "new" / earlier).write_bytes(message(1))
    inbox = Inbox()
    assert MaildirReader(maildir, handle_batch=inbox).run_once() == 2
    assert inbox.raws == [message(1), message(2)]


def test_arrival_order_spans_new_and_cur_and_names_without_microseconds(maildir: Path) -> None:
    """An unread mail that a client moved to cur/ arrived before one still in new/; a name
    without microseconds (Postfix's ``time.VdevIinode.host``) still sorts by its seconds."""
    deliver(maildir, b"x")
    for name in os.listdir(maildir / "new"):
        (maildir / "new" / name).unlink()
    (maildir / "new" / "1700000002.M5P7Q3.host").write_bytes(message(3))
    (maildir / "new" / "1700000001.V801I2a3b.host").write_bytes(message(2))
    (maildir / "cur" / "1700000000.M900000P7Q1.host:2,F").write_bytes(message(1))
    inbox = Inbox()
    assert MaildirReader(maildir, handle_batch=inbox).run_once() == 3
    assert inbox.raws == [message(1), message(2), message(3)]


def test_a_name_whose_time_cannot_be_a_delivery_time_takes_the_files(maildir: Path) -> None:
    """A name starting with a number that is no time in seconds (nanoseconds, a counter, a
    date far in the future) does not stop the reading of the folder: the mail is read, as of
    the moment its file came into the folder, among the others by that time."""
    deliver(maildir, b"x")
    for name in os.listdir(maildir / "new"):
        (maildir / "new" / name).unlink()
    (maildir / "new" / f"{time.time_ns()}.7.host").write_bytes(message(2))  # nanoseconds
    (maildir / "new" / "99999999999999.M5P7Q1.host").write_bytes(message(3))  # year 3170000
    (maildir / "new" / "1700000000.M5P7Q2.host").write_bytes(message(1))  # November 2023
    inbox = Inbox()
    assert MaildirReader(maildir, handle_batch=inbox).run_once() == 3
    assert inbox.raws == [message(1), message(2), message(3)]
    assert all(abs(time.time() - moment.timestamp()) < 600 for moment in inbox.arrived[1:])


def test_delivered_names_carry_six_digit_microseconds(maildir: Path) -> None:
    names = [deliver(maildir, message(n)).name for n in range(20)]
    for name in names:
        assert re.fullmatch(r"\d+\.M\d{6}P\d+Q\d+\..+", name), name


def test_batches_go_whole_in_arrival_order_and_are_marked_only_when_stored(maildir: Path) -> None:
    """``handle_batch``: at most BATCH messages at once, in arrival order, each with its
    delivery time; a batch whose handler raises stays unmarked, whole, for the next pass."""
    count = BATCH + 3
    paths = [deliver(maildir, message(n)) for n in range(count)]
    batches: list[tuple[list[bytes], list[datetime]]] = []
    fail = True

    def store(raws: list[bytes], arrived: list[datetime]) -> None:
        if fail and len(batches) == 1:
            raise RuntimeError("database is down")
        batches.append((raws, arrived))

    reader = MaildirReader(maildir, handle_batch=store)
    with pytest.raises(RuntimeError):
        reader.run_once()
    assert [len(raws) for raws, _ in batches] == [BATCH]
    assert len(listing(maildir, "new")) == 3  # the second batch, none of it marked
    fail = False
    assert reader.run_once() == 3
    assert [raw for raws, _ in batches for raw in raws] == [message(n) for n in range(count)]
    assert [at for _, arrived in batches for at in arrived] == [arrival_time(p) for p in paths]
    assert listing(maildir, "new") == []


# --- cur/ is listed only when it changed ---------------------------------------------------------


def age(folder: Path, seconds: float) -> int:
    """Set ``folder``'s change time ``seconds`` into the past (as though nothing had changed it
    since); the new time in nanoseconds."""
    when = time.time_ns() - int(seconds * 1e9)
    os.utime(folder, ns=(when, when))
    return when


class Listings:
    """Counts the listings of one folder (``os.listdir``), the cost a pass must not pay."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folder, self.count = folder, 0
        real = os.listdir

        def counted(path: os.PathLike[str] | str = ".") -> list[str]:
            if Path(path) == self.folder:
                self.count += 1
            return real(path)

        monkeypatch.setattr(os, "listdir", counted)


def test_a_pass_lists_cur_only_when_another_program_changed_it(
    maildir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cur/ keeps every mail handled; a pass reads it again only when it changed."""
    for n in range(3):
        deliver(maildir, message(n))
    inbox = Inbox()
    reader = MaildirReader(maildir, handle_batch=inbox)
    assert reader.run_once() == 3
    age(maildir / "cur", 60)  # a minute later, nothing changed: one more look, then none
    assert reader.run_once() == 0
    listings = Listings(maildir / "cur", monkeypatch)
    for _ in range(3):
        assert reader.run_once() == 0
    deliver(maildir, message(3))  # new mail: read from new/, marked into cur/
    assert reader.run_once() == 1
    assert reader.run_once() == 0
    assert listings.count == 0
    # A mail client moves an unread mail into cur/: the folder changed, and the mail is read.
    (maildir / "tmp" / "1.a.host:2,F").write_bytes(message(4))
    age(maildir / "cur", 30)  # stands for a change in another tick than the reader's last look
    os.rename(maildir / "tmp" / "1.a.host:2,F", maildir / "cur" / "1.a.host:2,F")
    assert reader.run_once() == 1
    assert inbox.raws == [message(n) for n in range(5)]
    assert listings.count == 1


def test_a_change_of_cur_in_the_tick_of_the_readers_own_is_caught_by_a_later_listing(
    maildir: Path,
) -> None:
    """A rename by another program in the same tick of the clock as the reader's own leaves
    cur/'s change time as the reader saw it: the reader lists cur/ again after a while."""
    deliver(maildir, message(0))
    inbox = Inbox()
    reader = MaildirReader(maildir, handle_batch=inbox)
    reader.relist_seconds = 0.2
    assert reader.run_once() == 1
    seen = os.stat(maildir / "cur").st_mtime_ns
    (maildir / "cur" / "1.a.host:2,F").write_bytes(message(1))
    os.utime(maildir / "cur", ns=(seen, seen))  # the same tick as the reader's last rename
    deadline = time.monotonic() + 30
    while len(inbox.raws) < 2 and time.monotonic() < deadline:
        reader.run_once()
        time.sleep(0.05)
    assert inbox.raws == [message(0), message(1)]


def test_unread_mail_of_cur_left_by_a_failed_pass_is_read_on_the_next(maildir: Path) -> None:
    deliver(maildir, b"x").unlink()  # the folders, empty
    inbox = Inbox()
    failing = [True]

    def handle(raws: list[bytes], arrived: list[datetime]) -> None:
        if failing[0]:
            raise RuntimeError("database away")
        inbox(raws, arrived)

    reader = MaildirReader(maildir, handle_batch=handle)
    age(maildir / "cur", 120)
    assert reader.run_once() == 0  # cur/ looked at, long unchanged: not looked at again
    (maildir / "cur" / "1.a.host:2,F").write_bytes(message(1))
    age(maildir / "cur", 60)
    with pytest.raises(RuntimeError):
        reader.run_once()  # found it, failed to store it: it stays, unread
    failing[0] = False
    assert reader.run_once() == 1
    assert inbox.raws == [message(1)]
    assert listing(maildir, "cur") == ["1.a.host:2,FS"]
