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
FOLDER_MODE = 0o755  # and finds it: the unit's UMask=0077 would make new folders 0700


def make_folders(folder: Path) -> None:
    """Create ``folder`` and its missing parents with :data:`FOLDER_MODE` whatever the umask
    (``mkdir``'s mode is masked by it); folders that exist are left as they are."""
    if folder.is_dir():
        return
    make_folders(folder.parent)
    try:
        folder.mkdir()
    except FileExistsError:  # made meanwhile by another writer: keep it as it was made
        return
    os.chmod(folder, FOLDER_MODE)


def write_atomic(path: Path, data: bytes) -> bool:
    """Put ``data`` at ``path`` in one step; False when the file already held exactly that."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    make_folders(path.parent)
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
