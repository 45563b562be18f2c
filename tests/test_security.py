"""Secrets are stored hashed and checked exactly; receipts are stable and specific."""

from __future__ import annotations

from pathlib import Path

from adjudicator.base.security import (
    bounce_address,
    bounced_seat,
    hash_secret,
    load_or_create_key,
    new_secret,
    receipt,
    token_digest,
    verify_secret,
)


def test_a_secret_verifies_against_its_hash_only() -> None:
    secret = new_secret()
    stored = hash_secret(secret)
    assert secret not in stored
    assert verify_secret(secret, stored)
    assert verify_secret(f"  {secret.upper()} ", stored)  # typed with caps or spaces
    assert not verify_secret(secret[:-1], stored)
    assert not verify_secret(new_secret(), stored)
    assert not verify_secret(secret, "garbage")
    assert not verify_secret(secret, "md5$AAAA$BBBB")


def test_the_same_secret_hashes_differently_each_time() -> None:
    assert hash_secret("abc") != hash_secret("abc")


def test_secrets_are_long_random_and_unambiguous() -> None:
    made = {new_secret() for _ in range(200)}
    assert len(made) == 200
    for secret in made:
        assert len(secret) == 12
        assert not set(secret) & set("01lo")


def test_receipts_depend_on_every_part(tmp_path: Path) -> None:
    key = load_or_create_key(tmp_path / "secret.key")
    assert load_or_create_key(tmp_path / "secret.key") == key  # created once, then read
    assert (tmp_path / "secret.key").stat().st_mode & 0o077 == 0
    base = {"game": "gw1", "round_number": 3, "player": "alice", "lines": ["GIVE 3 TO bob"]}
    code = receipt(key, **base)  # type: ignore[arg-type]
    assert code == receipt(key, **base)  # type: ignore[arg-type]
    for change in (
        {"game": "gw2"},
        {"round_number": 4},
        {"player": "bob"},
        {"lines": ["GIVE 3 TO carol"]},
    ):
        assert receipt(key, **{**base, **change}) != code  # type: ignore[arg-type]
    assert receipt(b"other key", **base) != code  # type: ignore[arg-type]


def test_reply_tokens_are_looked_up_by_digest() -> None:
    assert token_digest("AbC123xyz") == token_digest("abc123xyz ")
    assert token_digest("abc123xyz") != token_digest("abc123xy")


def test_a_bounce_address_names_its_seat_and_resists_forgery() -> None:
    key = b"k" * 32
    address = bounce_address(key, "judge@example.org", 42)
    assert address.startswith("judge+bounce-42-")
    assert address.endswith("@example.org")
    assert bounced_seat(key, address) == 42
    assert bounced_seat(key, f"<{address.upper()}>") == 42  # servers may change the case
    assert bounced_seat(b"x" * 32, address) is None  # another service's key
    assert bounced_seat(key, address.replace("-42-", "-43-")) is None  # a forged seat
    assert bounced_seat(key, "judge@example.org") is None
    assert bounced_seat(key, "judge+orders-abc@example.org") is None


def test_a_chosen_password_is_stored_with_scrypt_and_old_secrets_still_verify() -> None:
    """SET PASSWORD stores a slow salted hash, in its exact case; the machine-made secrets
    stored before (salted SHA-256, any case) keep working."""
    from adjudicator.base.security import hash_password, hash_secret, verify_secret

    stored = hash_password("Tr0mbone-42")
    assert stored.startswith("scrypt$")
    assert "Tr0mbone" not in stored
    assert verify_secret("Tr0mbone-42", stored)
    assert verify_secret(" Tr0mbone-42 ", stored)
    assert not verify_secret("tr0mbone-42", stored)
    assert hash_password("Tr0mbone-42") != stored  # salted
    old = hash_secret("abcd2345efgh")
    assert verify_secret("ABCD2345EFGH", old)
    assert not verify_secret("abcd2345efgx", old)
    assert not verify_secret("x", "md5$AAAA$AAAA")


def test_a_resignation_code_is_fixed_per_seat_and_void_after_a_replacement() -> None:
    from adjudicator.base.security import resign_code

    key = b"k" * 32
    assert resign_code(key, 7, "token") == resign_code(key, 7, "token")
    assert resign_code(key, 7, "token") != resign_code(key, 8, "token")
    assert resign_code(key, 7, "token") != resign_code(key, 7, "new token")
