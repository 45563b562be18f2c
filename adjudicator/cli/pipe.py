"""``adjudicate receive``: one message from a mail server's pipe (procmail, ``.forward``, a
Postfix alias), delivered into the service's Maildir.

The message is written into the Maildir the service reads (``[maildir] path``, by default
``<data_dir>/maildir``) as a delivery agent writes it: into ``tmp/``, synced, renamed into
``new/``, the folder synced (``mail/maildir.py``). Once this command has ended with status 0, the
message is on disk and the mail server may forget it. The running service (``adjudicate
serve``, which also sends every answer) is told of it and reads it at once
(``mail/maildir_watch.py``), with the rest of its mail, in arrival order: the delivery time in
the file name is when the mail arrived, and orders count as of then.

Nothing else happens in this process. A mail server starts one for every message, and at a
deadline many at once: this one imports the configuration and the Maildir writer only (the
whole command line takes a second to import), and never waits for the database's write lock.

Exit status 75 (``EX_TEMPFAIL`` of sysexits.h) when the message could not be stored, whatever
the reason, a broken configuration included: the mail server keeps the message and tries again
later, so nothing is lost while the game master mends it.

The command runs as the user the mail server chooses: for a Postfix alias, the owner of the
alias database, and ``default_privs`` (nobody) for root's ``/etc/aliases``. It must be the
service's user, who alone may read the configuration (mode 0600) and write the Maildir; a
refusal says which user was refused what (deploy/MAIL.md gives the alias map that works).
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path
from typing import BinaryIO, TextIO

from adjudicator.base.config import load_config
from adjudicator.mail.maildir import deliver

EX_TEMPFAIL = 75
"""sysexits.h: the mail server keeps the message and tries again later."""


def receive(config_path: Path | None, *, source: BinaryIO, errors: TextIO) -> int:
    """Deliver the message on ``source`` into the configured Maildir; the exit status."""
    try:
        raw = source.read()
        maildir = load_config(config_path).maildir_path
        deliver(maildir, raw)
    except PermissionError as error:
        print(f"adjudicate: could not store the message: {_refused(error)}", file=errors)
        return EX_TEMPFAIL
    except Exception as error:  # whatever it is: any other status makes the mail bounce
        print(f"adjudicate: could not store the message: {error}", file=errors)
        return EX_TEMPFAIL
    return 0


def _refused(error: PermissionError) -> str:
    """Who was refused what, and the usual reason: the mail server runs the pipe as another
    user than the service's (Postfix runs an alias of root's /etc/aliases as its
    ``default_privs``, nobody), who may read neither the configuration (mode 0600) nor the
    service's Maildir."""
    user = pwd.getpwuid(os.geteuid()).pw_name
    return (
        f"the user {user} may not open {error.filename}: {error.strerror}. The command must "
        "run as the service's user: deliver through an alias map owned by that user, "
        'not /etc/aliases (deploy/MAIL.md, "By pipe")'
    )


def config_of_receive(arguments: list[str]) -> tuple[bool, Path | None]:
    """Whether ``arguments`` (the command line after the program's name) ask for ``receive``
    and nothing else, and the ``--config`` they name: ``receive``, ``-c FILE receive``,
    ``--config FILE receive`` or ``--config=FILE receive``. Any other form (``--help``, an
    option of the command line's that this module does not know) is left to the whole
    command line, which says what is wrong with it."""
    if not arguments or arguments[-1] != "receive":
        return False, None
    options = arguments[:-1]
    if not options:
        return True, None
    if len(options) == 2 and options[0] in ("-c", "--config"):
        return True, Path(options[1])
    if len(options) == 1 and options[0].startswith("--config="):
        return True, Path(options[0].removeprefix("--config="))
    return False, None
