"""Crash points for the crash tests: ``crash_point("closed")`` kills the process at once with
SIGKILL when the environment variable ``ADJUDICATOR_CRASH_AT`` names that point.

The tests run the real service in a subprocess, kill it at each point of a use-case, restart it
and check that nothing was lost or done twice. Unset, a crash point costs one dictionary lookup.
"""

from __future__ import annotations

import os
import signal

ENVIRONMENT_VARIABLE = "ADJUDICATOR_CRASH_AT"


def crash_point(name: str) -> None:
    if os.environ.get(ENVIRONMENT_VARIABLE) == name:
        os.kill(os.getpid(), signal.SIGKILL)
