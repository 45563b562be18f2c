"""A player's address the SMTP server refuses at RCPT, as an operator and a game master meet
it: ``adjudicate serve`` sends through a real SMTP server (aiosmtpd) that answers 550 for that
recipient; the game master is mailed what happened and the fix; the operator lists, shows,
retries and drops mail with ``adjudicate outbox``, each command run as the installed program."""

from __future__ import annotations

import os
import subprocess
import sys
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from mailservers import Received, SmtpSink, running_smtp_sink

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
REFUSAL = "550 5.1.1 <ben@gone.example>: Recipient address rejected: User unknown"


def _parsed(received: Received) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(received.content)
    assert isinstance(message, EmailMessage)
    return message


def _text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert isinstance(part, EmailMessage)
    return " ".join(str(part.get_content()).split())  # the words, whatever the wrapping


class Operator:
    """Runs ``adjudicate`` as the operator does, on one service's data and SMTP server."""

    def __init__(self, tmp_path: Path, sink: SmtpSink) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
        self.env |= {
            "ADJUDICATOR_DATA_DIR": str(tmp_path / "data"),
            "ADJUDICATOR_ADDRESS": "judge@pbem.test",
            "ADJUDICATOR_SMTP_HOST": sink.host,
            "ADJUDICATOR_SMTP_PORT": str(sink.port),
            "ADJUDICATOR_SMTP_TLS": "none",
        }
        self.cwd = tmp_path

    def run(self, *args: str, code: int = 0) -> str:
        done = subprocess.run(
            [str(ADJUDICATE), *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.cwd,
            timeout=300,
            check=False,
        )
        assert done.returncode == code, f"adjudicate {' '.join(args)}: {done.stderr}"
        assert "Traceback" not in done.stderr
        return done.stdout + done.stderr


def _to(sink: SmtpSink, address: str) -> list[EmailMessage]:
    return [_parsed(r) for r in sink.received if address in r.rcpt_tos]


def _row(listing: str, mail_id: int) -> list[str]:
    return next(line.split() for line in listing.splitlines() if line.split()[:1] == [str(mail_id)])


def _notices(sink: SmtpSink) -> list[EmailMessage]:
    return [m for m in _to(sink, "gm@example.org") if "refused" in str(m["Subject"])]


def test_a_refused_player_is_told_to_the_game_master_and_the_operator_retries_and_drops(
    tmp_path: Path,
) -> None:
    with running_smtp_sink() as sink:
        operator = Operator(tmp_path, sink)
        operator.run("init")
        operator.run(
            "game", "create", "duel", "--kind", "starship-combat", "--schedule", "48h",
            "--player", "ann=ann@example.org", "--player", "ben=ben@gone.example",
            "--gm", "gm@example.org",
        )  # fmt: skip
        operator.run("serve", "--once")
        assert len(_to(sink, "ben@gone.example")) == 1  # the welcome still went through

        # ben's mailbox is gone: his server refuses him at RCPT from now on
        sink.refuse("rcpt", REFUSAL, address="ben@gone.example")
        operator.run("--round", "1", "--game", "duel")
        operator.run("serve", "--once")  # ann's result goes, ben's is refused
        operator.run("serve", "--once")  # the game master's notice, queued meanwhile
        assert len(_to(sink, "ben@gone.example")) == 1
        mail_id = _told_and_listed(operator, sink)
        _shown(operator, mail_id)
        _retried(operator, sink, mail_id)
        _dropped(operator, sink)


def _told_and_listed(operator: Operator, sink: SmtpSink) -> int:
    """The game master's notice says what happened and the fix; ``outbox list`` shows the
    refused mail, which the notice names. Its id."""
    (notice,) = _notices(sink)
    assert str(notice["Subject"]) == "[duel] Mail to ben was refused: the address takes no mail"
    said = _text(notice)
    assert "Mail to ben (ben@gone.example) was refused for good" in said
    assert "ben has not received the result of round 1" in said
    assert REFUSAL in said
    assert "adjudicate player address duel ben NEW-ADDRESS" in said
    failed = operator.run("outbox", "list")
    rows = [line.split() for line in failed.splitlines() if line.split()[1:2] == ["failed"]]
    assert len(rows) == 1
    mail_id = int(rows[0][0])
    assert rows[0][1:5] == ["failed", "result", "duel/1", "ben@gone.example"]
    assert "550 5.1.1" in failed
    assert f"adjudicate outbox retry {mail_id}" in said
    assert "no pending mail" in operator.run("outbox", "list", "--status", "pending")
    return mail_id


def _shown(operator: Operator, mail_id: int) -> None:
    """One mail in full; its text only when asked, and a welcome's password never."""
    shown = operator.run("outbox", "show", str(mail_id))
    assert f"mail {mail_id}: failed" in shown
    assert "recipient:   ben@gone.example" in shown
    assert "kind:        result (game duel, round 1)" in shown
    assert f"last error:  rcpt: {REFUSAL}" in shown
    assert "Subject: [duel]" in shown
    assert "text: not shown (add --body to see it)" in shown
    body = " ".join(operator.run("outbox", "show", str(mail_id), "--body").split())
    assert "round 1 of Starship Combat game duel has been adjudicated" in body
    sent = operator.run("outbox", "list", "--status", "sent")
    welcome = next(int(line.split()[0]) for line in sent.splitlines() if "welcome" in line)
    shown = operator.run("outbox", "show", str(welcome), "--body")
    assert "it held the player's password" in shown
    assert "PASSWORD" not in shown.upper().replace("PLAYER'S PASSWORD", "")
    assert "\n  Reply-To:" not in shown  # the seat's personal reply address
    assert "was sent" in operator.run("outbox", "retry", str(welcome), code=1)


def _retried(operator: Operator, sink: SmtpSink, mail_id: int) -> None:
    """Retried while still refused: failed again, and no second notice; retried once the
    address takes mail again: delivered."""
    operator.run("outbox", "retry", str(mail_id))
    operator.run("serve", "--once")
    operator.run("serve", "--once")
    assert _row(operator.run("outbox", "list"), mail_id)[1] == "failed"
    assert len(_notices(sink)) == 1
    sink.accept_all()
    assert "queued again" in operator.run("outbox", "retry", "--failed")
    operator.run("serve", "--once")
    results = _to(sink, "ben@gone.example")
    assert len(results) == 2
    assert "round 1 of Starship Combat game duel has been adjudicated" in _text(results[-1])
    assert "no pending or failed mail" in operator.run("outbox", "list")


def _dropped(operator: Operator, sink: SmtpSink) -> None:
    """A mail given up is never sent; dropping asks for --yes."""
    operator.run("--round", "2", "--game", "duel")
    pending = operator.run("outbox", "list", "--status", "pending", "--game", "duel")
    to_ben = next(int(row.split()[0]) for row in pending.splitlines() if "ben@gone" in row)
    assert "add --yes" in operator.run("outbox", "drop", str(to_ben), code=2)
    assert "dropped" in operator.run("outbox", "drop", str(to_ben), "--yes")
    operator.run("serve", "--once")
    assert len(_to(sink, "ben@gone.example")) == 2
    assert _row(operator.run("outbox", "list", "--status", "dropped"), to_ben)[1] == "dropped"
    assert "no mail 999999" in operator.run("outbox", "show", "999999", code=3)


@pytest.mark.parametrize("missing", ["--failed and an id", "neither"])
def test_retry_takes_an_id_or_failed(tmp_path: Path, missing: str) -> None:
    with running_smtp_sink() as sink:
        operator = Operator(tmp_path, sink)
        args = ["outbox", "retry", "1", "--failed"] if missing != "neither" else ["outbox", "retry"]
        assert "takes a mail's id or --failed" in operator.run(*args, code=2)
