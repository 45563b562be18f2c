"""What the use-cases need besides the database: who the service is, its templates and the key
behind receipts."""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.mail.compose import Identity, Renderer
from adjudicator.mail.images import PictureConverter, PngCache
from adjudicator.mail.render import VipsConverter
from adjudicator.readmodel.links import rules_file


@dataclass(frozen=True)
class ServiceContext:
    identity: Identity
    renderer: Renderer
    receipt_key: bytes
    max_bytes: int = 1_000_000
    archive_url: str = ""  # the published archive, linked from mails; empty: not published
    pngs: PngCache = field(default_factory=PngCache, compare=False)  # the last pictures made
    converter: PictureConverter = field(default_factory=VipsConverter, compare=False)

    def archive_link(self, game: str, page: str = "") -> str | None:
        """The address of a game's archive page (``page`` inside its folder), if published."""
        if not self.archive_url:
            return None
        return f"{self.archive_url.rstrip('/')}/{game}/{page}"

    def rules_link(self, kind: str) -> str | None:
        """The address of a game kind's rules page in the archive, if published."""
        if not self.archive_url:
            return None
        return f"{self.archive_url.rstrip('/')}/{rules_file(kind)}"

    @property
    def own_addresses(self) -> frozenset[str]:
        return frozenset({self.identity.address.lower()})
