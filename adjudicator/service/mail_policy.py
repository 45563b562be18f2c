"""A game's mail policy: which checks of its receiving server a mail must have passed."""

from __future__ import annotations

from adjudicator.mail.parse import AuthResult, InboundMail, aligned
from adjudicator.service.settings import settings_of
from adjudicator.storage.models import Game


def mail_policy_problem(game: Game, mail: InboundMail) -> str | None:
    """Why this mail fails the game's mail policy (e.g. ``require_auth = ["dkim"]``), if it does."""
    required = settings_of(game).require_auth
    # The topmost Authentication-Results field is the one our own receiving server added.
    top = mail.auth_results[0] if mail.auth_results else None
    failed = [m for m in required if top is None or not _passed(top, m, mail.sender or "")]
    if not failed:
        return None
    return "your mail server's " + " and ".join(m.upper() for m in failed) + " check did not pass"


def _passed(result: AuthResult, method: str, sender: str) -> bool:
    """A pass that vouches for the From address: DMARC's own, or a DKIM signature or SPF check
    of the From's domain (aligned, RFC 7489). A pass for some other domain proves nothing:
    anyone can sign their own mail and put another's address in From."""
    if getattr(result, method, None) != "pass":
        return False
    from_domain = sender.rpartition("@")[2]
    if method == "dkim":
        return any(aligned(domain, from_domain) for domain in result.dkim_domains)
    if method == "spf":
        return aligned(result.spf_domain, from_domain)
    return True  # dmarc: alignment is part of its pass
