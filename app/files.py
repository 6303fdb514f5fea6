"""Files the service makes for its secrets (the first API key, the signing key, the session secret)."""

from __future__ import annotations

import os
from pathlib import Path


def create_private(path: Path, data: bytes) -> bool:
    """Write ``data`` to a new file at ``path`` readable only by its owner (mode 0600, its folder made if needed);
    False, writing nothing, when the file exists (made meanwhile by another process: the caller reads that one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return True
