"""Writing the site's files so that a reader never sees half a page.

Each file is written to a temporary file in its own folder and renamed over the old one (a
rename is atomic within a file system). A file whose content has not changed is left alone, so
that rebuilding after every round touches only what the round changed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

FILE_MODE = 0o644  # a web server reads what the service writes


def write_atomic(path: Path, data: bytes) -> bool:
    """Put ``data`` at ``path`` in one step; False when the file already held exactly that."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return True
