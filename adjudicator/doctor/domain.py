"""The DNS of the service's own domain: can mail reach it (MX, or an address), and will the
mail it sends be believed (SPF, DMARC)?"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable

from adjudicator.base.config import Config, MissingExtra, require_extra
from adjudicator.doctor.check import FAIL, OK, SKIP, TIMEOUT, WARN, Check, words

Lookup = Callable[[str, str], list[str]]
"""``lookup(name, record_type)``: the records as text; [] when there are none."""

_RESERVED = re.compile(r"(^|\.)(localhost|test|example|invalid|local)$")  # RFC 2606, 6761, 6762


def check_dns(config: Config, *, lookup: Lookup | None = None) -> list[Check]:
    domain = config.service.address.rpartition("@")[2].strip().lower()
    if not domain:
        return [Check("DNS", SKIP, "the service address has no domain")]
    if _RESERVED.search(domain) or _is_ip(domain.strip("[]")):
        return [Check("DNS", SKIP, f"{domain} is a local or reserved name, not in public DNS")]
    try:
        look = lookup or dns_lookup()
    except MissingExtra as error:  # the DNS check is optional: so is its package
        return [
            Check(
                "DNS",
                SKIP,
                f"not checked: {error.package} is not installed",
                f"pip install 'adjudicator[{error.extra}]', then run doctor again",
            )
        ]
    try:
        mx = look(domain, "MX")
        hosts = mx or look(domain, "A") or look(domain, "AAAA")
        spf = [t for t in look(domain, "TXT") if t.lower().startswith("v=spf1")]
        dmarc = [t for t in look(f"_dmarc.{domain}", "TXT") if t.lower().startswith("v=dmarc1")]
    except Exception as error:  # no resolver, a timeout: not the domain's fault
        return [
            Check(
                "DNS",
                WARN,
                f"could not check DNS: {words(error)}",
                "check this machine's resolver (/etc/resolv.conf), then run doctor again",
            )
        ]
    return [_receives(domain, mx, hosts), *_believed(domain, spf=spf, dmarc=dmarc)]


def _receives(domain: str, mx: list[str], hosts: list[str]) -> Check:
    if mx and all(record.split()[-1] == "." for record in mx):  # RFC 7505 null MX
        return Check(
            "DNS",
            FAIL,
            f"{domain} has a null MX: it says it accepts no mail, so players cannot write to it",
            f"replace the MX record of {domain} with the host of the service's mailbox",
        )
    if not hosts:
        return Check(
            "DNS",
            FAIL,
            f"{domain} has no MX, A or AAAA record: players' mail cannot reach it",
            f"publish an MX record for {domain} naming the host of the service's mailbox",
        )
    how = "MX" if mx else "no MX, its address"
    return Check("DNS", OK, f"{domain} receives mail ({how} {hosts[0]})")


def _believed(domain: str, *, spf: list[str], dmarc: list[str]) -> list[Check]:
    checks = []
    if not spf:
        checks.append(
            Check(
                "DNS",
                WARN,
                f"{domain} has no SPF record: receivers cannot tell the service's mail from "
                "forgeries and often file it as spam",
                f'publish a TXT record for {domain}: "v=spf1 mx -all" (or your provider\'s)',
            )
        )
    if not dmarc:
        checks.append(
            Check(
                "DNS",
                WARN,
                f"{domain} has no DMARC record: large providers (Gmail, Yahoo) junk or refuse "
                "mail from domains without one",
                f'publish a TXT record for _dmarc.{domain}: "v=DMARC1; p=none"',
            )
        )
    return checks


def dns_lookup(
    nameservers: list[str] | None = None, *, port: int = 53, lifetime: float = TIMEOUT
) -> Lookup:
    """A lookup through dnspython: the system's resolver, or the given name servers. Raises
    :class:`MissingExtra` without dnspython (the extra ``dns``)."""
    require_extra("dns.resolver", feature="checking the DNS", extra="dns", package="dnspython")
    import dns.resolver  # noqa: PLC0415 - only when the DNS is checked

    def look(name: str, kind: str) -> list[str]:
        resolver = dns.resolver.Resolver(configure=nameservers is None)
        if nameservers is not None:
            resolver.nameservers = nameservers
            resolver.port = port
        resolver.lifetime = lifetime
        try:
            answer = resolver.resolve(name, kind)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        if kind == "TXT":
            return [b"".join(r.strings).decode(errors="replace") for r in answer]
        return [r.to_text() for r in answer]

    return look


def _is_ip(text: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in text else socket.AF_INET, text)
    except OSError:
        return False
    return True
