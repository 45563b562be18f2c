"""Inbound mail: reading raw messages tolerantly into values the service can act on."""
