"""What the service tells people: a ``Notice`` (one thing told to one recipient), queued in the
transaction that decided it, rendered by its channel and delivered from the outbox after the
commit, retried, never lost by a crash. Mail is the first channel (``mail.py``).

This floor stands between ``mail/`` (the words and the wire) and ``service/`` (the use-cases,
which decide what to tell): the use-cases build notices and queue them here, and never build a
message themselves.
"""
