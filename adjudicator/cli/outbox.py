"""``adjudicate outbox``: the operator's view of the mail waiting to go out or refused, and
the means to send a mail again or give it up (``service/outbox_care.py``).

Mounted on the main command as ``app.add_typer(outbox_app, name="outbox")``; the main
command's ``--config`` reaches it through :mod:`adjudicator.cli.support`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from adjudicator.cli.support import EXIT_USAGE, app_from_config, fail
from adjudicator.service import ServiceError
from adjudicator.service.outbox_care import (
    HEADING,
    LISTED,
    STATUSES,
    drop,
    find_mail,
    listed_mails,
    mail_lines,
    retry,
    retry_failed,
)
from adjudicator.storage.db import session_scope

app = typer.Typer(help="The outbox: mail waiting to go out, or refused by the SMTP server.")

MailId = Annotated[int, typer.Argument(help="The mail's id, as `adjudicate outbox list` shows.")]


@app.command("list")
def list_mails(
    status: Annotated[
        list[str] | None,
        typer.Option(help=f"Only mails in this status ({', '.join(STATUSES)}); repeatable."),
    ] = None,
    game: Annotated[str | None, typer.Option(help="Only this game's mails.")] = None,
    limit: Annotated[int, typer.Option(help="Show at most this many, oldest first.")] = 200,
) -> None:
    """List the mails waiting to be sent and those that failed (the default), oldest first."""
    application = app_from_config()
    statuses = tuple(status or (s.value for s in LISTED))
    try:
        with session_scope(application.engine) as session:
            shown, total = listed_mails(session, statuses=statuses, game=game, limit=limit)
            lines = [listed.line() for listed in shown]
    except ServiceError as error:
        fail(error)
    what = " or ".join(statuses) + (f" mail of game {game}" if game else " mail")
    if not lines:
        typer.echo(f"no {what} in the outbox")
        return
    typer.echo(HEADING)
    for line in lines:
        typer.echo(line)
    more = f", the oldest {len(lines)} shown (--limit)" if total > len(lines) else ""
    typer.echo(f"{total} {what}{more}; `adjudicate outbox show ID` shows one")


@app.command("show")
def show(
    mail_id: MailId,
    body: Annotated[
        bool, typer.Option("--body", help="Also show the mail's text (never a password).")
    ] = False,
) -> None:
    """Show one mail: its state, recipient, last error and header fields."""
    application = app_from_config()
    try:
        with session_scope(application.engine) as session:
            lines = mail_lines(session, mail_id, body=body)
    except ServiceError as error:
        fail(error)
    typer.echo("\n".join(lines))


@app.command("retry")
def retry_command(
    mail_id: Annotated[
        int | None, typer.Argument(help="The mail's id (or --failed for every failed one).")
    ] = None,
    failed: Annotated[
        bool, typer.Option("--failed", help="Every failed mail that can be sent again.")
    ] = False,
    game: Annotated[str | None, typer.Option(help="With --failed: only this game's.")] = None,
) -> None:
    """Send a mail again (once the cause of its failure is mended): it is due at once, and the
    running service sends it."""
    if (mail_id is None) == (not failed):
        typer.echo("adjudicate: outbox retry takes a mail's id or --failed", err=True)
        raise typer.Exit(EXIT_USAGE)
    application = app_from_config()
    now = application.clock()
    try:
        with session_scope(application.engine) as session:
            if mail_id is not None:
                mail = find_mail(session, mail_id)
                retry(session, mail, now=now)
                done = f"mail {mail_id} ({mail.kind} to {mail.recipient}) is queued again"
                left: list[str] = []
            else:
                retried, left = retry_failed(session, game=game, now=now)
                done = f"{retried} failed mail(s) queued again"
    except ServiceError as error:
        fail(error)
    them = "it" if mail_id is not None else "them"
    typer.echo(f"{done}; the running service sends {them} within seconds")
    for why in left:
        typer.echo(f"  left: {why}")


@app.command("drop")
def drop_command(
    mail_id: MailId,
    yes: Annotated[bool, typer.Option("--yes", help="Drop it: it is never sent.")] = False,
) -> None:
    """Give a mail up: it stays in the outbox as dropped, and is never sent."""
    application = app_from_config()
    try:
        with session_scope(application.engine) as session:
            mail = find_mail(session, mail_id)
            what = f"mail {mail_id} ({mail.status} {mail.kind} to {mail.recipient})"
            if not yes:
                typer.echo(
                    f"adjudicate: {what} would never be sent: add --yes to drop it", err=True
                )
                raise typer.Exit(EXIT_USAGE)
            drop(session, mail, now=application.clock())
    except ServiceError as error:
        fail(error)
    typer.echo(f"{what} dropped")
