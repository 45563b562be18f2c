"""What the use-cases need besides the database: who the service is, its templates and the key
behind receipts."""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.mail.compose import Identity, Renderer


@dataclass(frozen=True)
class ServiceContext:
    identity: Identity
    renderer: Renderer
    receipt_key: bytes
    max_bytes: int = 1_000_000

    @property
    def own_addresses(self) -> frozenset[str]:
        return frozenset({self.identity.address.lower()})
