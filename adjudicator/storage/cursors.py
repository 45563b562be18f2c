"""The IMAP poller's place in each folder, kept in the database (a ``CursorStore``)."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from adjudicator.storage.db import session_scope
from adjudicator.storage.models import MailboxCursor


class DatabaseCursorStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, mailbox: str) -> tuple[int, int] | None:
        with Session(self.engine) as session:
            cursor = session.exec(
                select(MailboxCursor).where(MailboxCursor.mailbox == mailbox)
            ).first()
            return None if cursor is None else (cursor.uidvalidity, cursor.last_uid)

    def set(self, mailbox: str, uidvalidity: int, last_uid: int) -> None:
        with session_scope(self.engine) as session:
            cursor = session.exec(
                select(MailboxCursor).where(MailboxCursor.mailbox == mailbox)
            ).first()
            if cursor is None:
                cursor = MailboxCursor(mailbox=mailbox, uidvalidity=uidvalidity)
            elif cursor.uidvalidity == uidvalidity and cursor.last_uid > last_uid:
                return  # never move backwards (two instances may race)
            cursor.uidvalidity, cursor.last_uid = uidvalidity, last_uid
            session.add(cursor)
