"""What the service tells people: a ``Notice`` (one thing told to one recipient, ``notice.py``),
queued through one function (``queue.queue_notice``) in the transaction that decided it,
rendered by its channel (``channels.py``; mail is the first, ``mail.py``) and delivered from
the outbox after the commit (``outbox.py``), retried, never lost by a crash. Answers are
weighed against the answer limits (``throttle.py``) and the loop guard (``loop_guard.py``)
where they are queued; a notice that can wait is held for its recipient's daily digest when he
takes one (``digest.py``). ``context.py`` is what the use-cases need besides the database.

This floor stands between ``mail/`` (the words and the wire) and ``service/`` (the use-cases,
which decide what to tell): the use-cases build notices and queue them here, and never build
a message themselves.
"""
