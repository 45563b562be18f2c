"""``adjudicate doctor``: is this installation ready to run? Each check says what it found and,
when something is wrong, precisely how to fix it.

The checks go from the inside out: the configuration (with the log format and level), every
path the service writes (as the user it runs as, and inside its systemd unit's sandbox), the
database and its schema, the key file, the metrics port, the IMAP mailbox, the SMTP server
(nothing is sent unless asked), the DNS of the service's own domain. A check that does not
apply (no IMAP server configured) is skipped with its reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

from adjudicator.doctor.check import FAIL, OK, SKIP, WARN, Check
from adjudicator.doctor.domain import check_dns, dns_lookup
from adjudicator.doctor.local import (
    check_configuration,
    check_database,
    check_key,
    check_logging,
    check_metrics_port,
    check_solutions,
    config_file,
)
from adjudicator.doctor.mail import check_imap, check_smtp
from adjudicator.doctor.paths import check_paths

__all__ = [
    "FAIL",
    "OK",
    "SKIP",
    "WARN",
    "Check",
    "check_configuration",
    "check_database",
    "check_dns",
    "check_imap",
    "check_key",
    "check_logging",
    "check_metrics_port",
    "check_paths",
    "check_smtp",
    "check_solutions",
    "dns_lookup",
    "report",
    "run_checks",
]


def run_checks(
    path: Path | None, *, send_to: str | None = None, unit: Path | None = None
) -> Iterator[Check]:
    """Every check, in order; after a configuration that cannot be read, nothing else.
    ``unit``: the service's systemd unit (by default the installed one, if there is one)."""
    config, checks = check_configuration(path)
    yield from checks
    if config is None:
        return
    yield from check_paths(config, config_file=config_file(path), unit_file=unit)
    yield check_database(config)
    yield check_key(config)
    yield from check_metrics_port(config)
    yield from check_solutions(config)
    yield from check_imap(config)
    yield from check_smtp(config, send_to=send_to)
    yield from check_dns(config)


def report(
    path: Path | None,
    *,
    send_to: str | None,
    as_json: bool,
    echo: Callable[[str], object],
    unit: Path | None = None,
) -> int:
    """Run the checks and show them (a line each as it finishes, or one JSON object at the
    end); the exit code is 0 only when every check is ok or skipped."""
    checks = []
    for check in run_checks(path, send_to=send_to, unit=unit):
        checks.append(check)
        if not as_json:
            echo(check.line())
    problems = sum(not check.healthy for check in checks)
    if as_json:
        echo(json.dumps({"ok": not problems, "checks": [c.to_json() for c in checks]}))
    elif problems:
        echo(f"{problems} problem{'s' * (problems > 1)} to fix before `adjudicate serve`")
    else:
        echo("everything is ready")
    return 1 if problems else 0
