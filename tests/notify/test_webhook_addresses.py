"""A webhook's address is an attacker's choice (issue 42, safety): only https unless the
operator allows http; after resolution no loopback, private, link-local, multicast,
unspecified or reserved address, IPv4 or IPv6 (an IPv4 address mapped into IPv6 as well);
the operator's allow-list lets a host through; and the post goes to the address that was
checked, never to a second resolution of the name (DNS rebinding)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from webhook_receiver import Receiver, receiving

from adjudicator.base.config import ConfigError, WebhooksConfig, load_config
from adjudicator.mail.smtp import SendStatus
from adjudicator.notify.webhook import WebhookSender
from adjudicator.notify.webhook_address import RefusedAddress, resolve_target

REFUSED = {
    "loopback": ["127.0.0.1", "127.8.9.10", "::1"],
    "private": ["10.1.2.3", "172.16.0.1", "192.168.1.1", "fd00::1"],
    "link-local": ["169.254.169.254", "fe80::1"],
    "multicast": ["224.0.0.1", "239.255.255.250", "ff02::1"],
    "unspecified": ["0.0.0.0", "::"],
    "reserved": ["240.0.0.1", "255.255.255.255"],
    "mapped": ["::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254"],
    "not public": ["100.64.0.1", "198.18.0.1"],
}


def fixed(*answers: Sequence[str]) -> tuple[list[str], object]:
    """A resolver giving ``answers`` one after another (the last again), and its log."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return list(answers[min(len(asked), len(answers)) - 1])

    return asked, resolve


def target(url: str, resolved: Sequence[str] = ("93.184.216.34",), **options: object) -> str:
    _, resolver = fixed(resolved)
    found = asyncio.run(resolve_target(url, resolver=resolver, **options))  # type: ignore[arg-type]
    return found.address


@pytest.mark.parametrize(
    "address", [a for addresses in REFUSED.values() for a in addresses], ids=str
)
def test_every_address_class_but_public_is_refused_after_resolution(address: str) -> None:
    with pytest.raises(RefusedAddress):
        target("https://hooks.example.org/x", [address])
    literal = f"[{address}]" if ":" in address else address
    with pytest.raises(RefusedAddress):
        target(f"https://{literal}/x", [])


def test_a_name_resolving_to_a_public_and_a_private_address_is_refused() -> None:
    with pytest.raises(RefusedAddress, match="private"):
        target("https://hooks.example.org/x", ["93.184.216.34", "10.0.0.7"])


def test_a_public_address_is_taken_and_the_operator_allows_more() -> None:
    assert target("https://hooks.example.org/x") == "93.184.216.34"
    assert target("https://hooks.example.org/x", ["2606:4700::1111"]) == "2606:4700::1111"
    assert target("https://hooks.lan/x", ["10.0.0.7"], allow_hosts=["hooks.lan"]) == "10.0.0.7"
    assert target("https://127.0.0.1:8443/x", [], allow_hosts=["127.0.0.1"]) == "127.0.0.1"


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.org/x",
        "ftp://hooks.example.org/x",
        "https://user:pw@hooks.example.org/x",
        "https:///x",
        "hooks.example.org/x",
    ],
)
def test_only_https_without_credentials_by_default(url: str) -> None:
    with pytest.raises(RefusedAddress):
        target(url)


def test_plain_http_when_the_operator_allows_it() -> None:
    assert target("http://hooks.example.org/x", allow_http=True) == "93.184.216.34"


def post(sender: WebhookSender, url: str) -> tuple[SendStatus, str]:
    message = json.dumps({"event": "round.opened", "delivery": "d-1", "body": "{}"}).encode()

    async def run() -> tuple[SendStatus, str]:
        try:
            result = await sender.post(message, url)
            return result.status, result.text
        finally:
            await sender.close()

    return asyncio.run(run())


def test_the_post_goes_to_the_address_checked_not_to_a_second_resolution() -> None:
    """A name that resolves to an allowed address when checked, then to another: the post
    reaches the checked one, with the name as its Host; the name is resolved once."""
    with receiving(Receiver()) as receiver:
        asked, resolver = fixed(["127.0.0.1"], ["10.9.9.9"])
        config = WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True)
        sender = WebhookSender(config, resolver=resolver)  # type: ignore[arg-type]
        url = f"http://rebind.example:{receiver.port}/x"
        assert post(sender, url) == (SendStatus.SENT, "taken")
        assert asked == ["rebind.example"]
        (got,) = receiver.posts
        assert got.headers["Host"] == f"rebind.example:{receiver.port}"


def test_a_name_that_answers_public_first_then_loopback_is_pinned_to_the_public_one() -> None:
    asked, resolver = fixed(["93.184.216.34"], ["127.0.0.1"])
    found = asyncio.run(resolve_target("https://rebind.example/x", resolver=resolver))  # type: ignore[arg-type]
    assert found.pinned_url == "https://93.184.216.34:443/x"
    assert found.host_header == "rebind.example"
    assert asked == ["rebind.example"]


def test_a_refused_address_is_given_up_and_a_redirect_not_followed() -> None:
    _, resolver = fixed(["127.0.0.1"])
    sender = WebhookSender(WebhooksConfig(allow_http=True), resolver=resolver)  # type: ignore[arg-type]
    status, text = post(sender, "http://evil.example/x")
    assert status is SendStatus.PERMANENT
    assert "loopback" in text
    with receiving(Receiver(answers=[302])) as receiver:
        config = WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True)
        status, text = post(WebhookSender(config), receiver.url)
        assert (status, text) == (SendStatus.PERMANENT, "a redirect (not followed)")
        assert len(receiver.posts) == 1


def test_the_operators_table_is_read_from_the_file_and_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text('[webhooks]\nallow_hosts = ["127.0.0.1", "hooks.lan"]\n', encoding="utf-8")
    config = load_config(path, env={})
    assert config.webhooks.allow_hosts == ("127.0.0.1", "hooks.lan")
    assert not config.webhooks.allow_http
    config = load_config(path, env={"ADJUDICATOR_WEBHOOKS_ALLOW_HOSTS": "10.0.0.5, ::1"})
    assert config.webhooks.allow_hosts == ("10.0.0.5", "::1")
    assert load_config(None, env={}).webhooks.allow_hosts == ()  # nothing trusted by default
    path.write_text("[webhooks]\nallow_hosts = [1]\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(path, env={})


def test_posts_to_one_host_beyond_the_limit_wait_for_their_retry() -> None:
    message = json.dumps({"event": "round.opened", "delivery": "d-1", "body": "{}"}).encode()
    with receiving(Receiver()) as receiver:
        config = WebhooksConfig(allow_hosts=("127.0.0.1",), allow_http=True, per_host_per_minute=2)

        async def run() -> list[SendStatus]:
            sender = WebhookSender(config)
            try:
                envelopes = [(message, "", receiver.url)] * 3
                return [r.status for r in await sender.send_batch(envelopes)]
            finally:
                await sender.close()

        statuses = asyncio.run(run())
        assert statuses == [SendStatus.SENT, SendStatus.SENT, SendStatus.TEMPORARY]
        assert len(receiver.posts) == 2
