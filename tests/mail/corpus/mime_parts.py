"""The MIME side of the corpus: a mail's headers, parts, charset and transfer encoding, and the
quoting helpers both corpus builders use (``make_corpus.py``, ``last_mile.py``)."""

from __future__ import annotations

import base64
import html
import quopri
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------------------------
# MIME


@dataclass
class Mail:
    """A mail to write: headers, and a plain and/or an HTML body in a charset and encoding."""

    client: str
    plain: str | None = None
    html_body: str | None = None
    charset: str = "utf-8"
    encoding: str = "quoted-printable"  # or base64, 8bit, 7bit
    flowed: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    signed: str | None = None  # "pgp" or "smime": multipart/signed around the body
    declared: str | None = None  # a charset label other than the one the bytes are in
    text: tuple[str, ...] | None = None  # the player's lines, when not the reply's own
    signature: tuple[str, ...] | None = None  # the signature a reader finds, when not the reply's
    history: bool = True  # whether the service's mail is quoted below

    def encode_part(self, text: str, subtype: str) -> bytes:
        data = text.replace("\n", "\r\n" if self.encoding == "base64" else "\n").encode(
            self.charset
        )
        label = self.declared or self.charset
        params = f'; charset="{label}"'
        if self.flowed and subtype == "plain":
            params += "; format=flowed"
        head = (
            f"Content-Type: text/{subtype}{params}\nContent-Transfer-Encoding: {self.encoding}\n\n"
        )
        if self.encoding == "base64":
            body = base64.encodebytes(data)
        elif self.encoding == "quoted-printable":
            body = quopri.encodestring(data)
        else:
            body = data
        return head.encode() + body + (b"" if body.endswith(b"\n") else b"\n")


def _boundary(name: str, kind: str) -> str:
    return f"=_{kind}_{name}"


def render(mail: Mail, name: str) -> bytes:
    head = {
        "From": "Alice Example <alice@example.org>",
        "To": "judge+TOKEN@pbem.test",
        "Subject": "Re: [gw1] Orders received for round 1",
        "Date": "Mon, 02 Mar 2026 14:00:00 +0100",
        "Message-ID": f"<{name}@mail.example.org>",
        "In-Reply-To": "<confirmation.1@pbem.test>",
        "MIME-Version": "1.0",
        **mail.headers,
    }
    parts: list[bytes] = []
    if mail.plain is not None:
        parts.append(mail.encode_part(mail.plain, "plain"))
    if mail.html_body is not None:
        parts.append(mail.encode_part(mail.html_body, "html"))
    if len(parts) == 2:
        boundary = _boundary(name, "alt")
        body = f'Content-Type: multipart/alternative; boundary="{boundary}"\n\n'.encode()
        for part in parts:
            body += f"--{boundary}\n".encode() + part
        body += f"--{boundary}--\n".encode()
    else:
        body = parts[0]
    if mail.signed:
        boundary = _boundary(name, "sig")
        protocol, sig_type, sig_name = (
            ("application/pgp-signature", "application/pgp-signature", "signature.asc")
            if mail.signed == "pgp"
            else ("application/pkcs7-signature", "application/pkcs7-signature", "smime.p7s")
        )
        signature = (
            "-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEEexampleexampleexampleexample\n=abcd\n-----END PGP SIGNATURE-----\n"
            if mail.signed == "pgp"
            else base64.encodebytes(b"\x30\x82 not a real signature " * 4).decode()
        )
        encoding = "" if mail.signed == "pgp" else "Content-Transfer-Encoding: base64\n"
        body = (
            (
                f'Content-Type: multipart/signed; micalg=sha-256; protocol="{protocol}"; boundary="{boundary}"\n\n'
                f"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)\n--{boundary}\n"
            ).encode()
            + body
            + (
                f'--{boundary}\nContent-Type: {sig_type}; name="{sig_name}"\n'
                f'Content-Disposition: attachment; filename="{sig_name}"\n{encoding}\n{signature}'
                f"--{boundary}--\n"
            ).encode()
        )
    header_bytes = "".join(f"{key}: {value}\n" for key, value in head.items() if value).encode()
    return header_bytes + body


# ---------------------------------------------------------------------------------------------
# Quoting styles


def prefixed(lines: list[str], prefix: str = "> ") -> list[str]:
    return [(prefix + line) if line else prefix.rstrip() for line in lines]


def html_lines(lines: list[str]) -> str:
    return "".join(f"<div>{html.escape(line) if line else '<br>'}</div>" for line in lines)


def html_blockquote(lines: list[str], attrs: str = 'type="cite"') -> str:
    return f"<blockquote {attrs}>{html_lines(lines)}</blockquote>"
