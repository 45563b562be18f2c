"""A game's Atom 1.0 feed (RFC 4287): one entry per reported round.

Ids are tag URIs (RFC 4151) made of the service's domain, the day the game was created, the
game's name and the round number: they never change when the site is rebuilt or moved. The
document is built with ElementTree, so it is well-formed whatever the text holds.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from adjudicator.archive.times import rfc3339
from adjudicator.storage.db import aware

ATOM = "http://www.w3.org/2005/Atom"


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    updated: datetime
    link: str
    summary: str
    html: str  # the entry's content, as HTML


@dataclass(frozen=True)
class Feed:
    id: str
    title: str
    subtitle: str
    updated: datetime
    author: str
    link: str  # the page the feed is about
    self_link: str
    entries: Sequence[Entry]


def tag_uri(authority: str, created: datetime, specific: str) -> str:
    """``tag:pbem.example.org,2026-03-02:gw42/round-3``: minted once, stable for ever."""
    return f"tag:{authority},{aware(created):%Y-%m-%d}:{specific}"


def _text(parent: ET.Element, name: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{name}", attributes)
    element.text = text
    return element


def atom_document(feed: Feed) -> str:
    """The feed as an XML document (UTF-8, with its declaration)."""
    ET.register_namespace("", ATOM)
    root = ET.Element(f"{{{ATOM}}}feed")
    _text(root, "id", feed.id)
    _text(root, "title", feed.title)
    _text(root, "subtitle", feed.subtitle)
    _text(root, "updated", rfc3339(feed.updated))
    author = ET.SubElement(root, f"{{{ATOM}}}author")
    _text(author, "name", feed.author)
    ET.SubElement(root, f"{{{ATOM}}}link", {"rel": "alternate", "href": feed.link})
    ET.SubElement(
        root,
        f"{{{ATOM}}}link",
        {"rel": "self", "href": feed.self_link, "type": "application/atom+xml"},
    )
    for entry in feed.entries:
        element = ET.SubElement(root, f"{{{ATOM}}}entry")
        _text(element, "id", entry.id)
        _text(element, "title", entry.title)
        _text(element, "updated", rfc3339(entry.updated))
        ET.SubElement(element, f"{{{ATOM}}}link", {"rel": "alternate", "href": entry.link})
        _text(element, "summary", entry.summary)
        _text(element, "content", entry.html, type="html")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"
