"""``adjudicate serve``: the long-running service and the processes it hands work to.

``runner.py`` is the main loop (``Service``); ``workers.py`` close due rounds, report them and
rebuild archive pages; ``reader_process.py`` reads incoming mail and ``sending.py`` hands mail
to the SMTP server, each in a process of its own, started through ``child_processes.py``;
``scheduler.py`` plans deadlines and reminders; ``archiving.py`` keeps the archive site
current; ``metrics.py``, ``systemd.py`` and ``garbage_collection.py`` serve the operator and
the machine.
"""
