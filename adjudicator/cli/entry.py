"""The ``adjudicate`` command's entry point. ``receive``, which a mail server runs for every
message, goes to ``pipe.py`` without loading the rest (a process that ends in a tenth of a
second instead of a second and a half); every other command goes to ``cli.py``."""

from __future__ import annotations

import sys

from adjudicator.cli.pipe import config_of_receive, receive


def main() -> None:
    asked, config_path = config_of_receive(sys.argv[1:])
    if asked:
        sys.exit(receive(config_path, source=sys.stdin.buffer, errors=sys.stderr))
    from adjudicator.cli.main import main as command_line  # noqa: PLC0415 - only when asked for

    command_line()
