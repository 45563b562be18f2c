"""The quickstart's demonstration: a small Giveaway game whose players' order mails are already
waiting in the local Maildir, so that a first ``make run`` shows the whole cycle: mails read,
confirmations written, the deadline reached, the round adjudicated and the results mailed (into
``<data_dir>/outbox-maildir``, since no SMTP server is configured)."""

from __future__ import annotations

from email.message import EmailMessage

from sqlmodel import select

from adjudicator.app import App
from adjudicator.mail.maildir import deliver, ensure_maildir
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game

DEMO_ORDERS = {
    "alice": "GIVE 1 TO bob\nGIVE 2 TO carol",
    "bob": "Hello judge!\n\n- give 1 to alice\n- give 2 to carol",
    "carol": "GIVE 3 TO alice\n\n-- \nCarol",
}


def seed_demo(app: App, *, minutes: int = 1) -> bool:
    """Create the demo game and drop its order mails in the Maildir; False if it exists."""
    now = app.clock()
    with session_scope(app.engine) as session:
        if session.exec(select(Game).where(Game.name == "demo")).first() is not None:
            return False
        game, credentials = create_game(
            session,
            name="demo",
            kind="giveaway",
            options={},
            schedule=f"{minutes}m",
            players=[PlayerSpec(h, f"{h}@example.org") for h in DEMO_ORDERS],
            now=now,
        )
        first = start_game(session, game, now=now)
        queue_welcome(
            session, ctx=app.ctx, game=game, credentials=credentials, first_round=first, now=now
        )
    folder = ensure_maildir(app.config.maildir_path)
    for cred in credentials:
        message = EmailMessage()
        message["From"] = cred.address
        message["To"] = app.config.service.address
        message["Subject"] = "[demo] my orders"
        message["Message-ID"] = f"<demo-{cred.handle}@example.org>"
        message.set_content(f"PASSWORD {cred.secret}\n{DEMO_ORDERS[cred.handle]}\n")
        deliver(folder, message.as_bytes())
    return True
