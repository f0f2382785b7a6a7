"""A minimal writer for the cpio "newc" format, enough for an initramfs.

Written here so building the guest needs no ``cpio`` binary on the host.
"""
from __future__ import annotations

import io
import stat
from typing import List, Tuple

#: (path inside the archive, mode, data) ; directories have data b"", symlinks hold the target.
Entry = Tuple[str, int, bytes]


def _header(ino: int, mode: int, size: int, name: bytes) -> bytes:
    fields = [ino, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, len(name) + 1, 0]
    return b"070701" + b"".join(b"%08X" % f for f in fields)


def _pad(n: int) -> bytes:
    return b"\0" * ((4 - n % 4) % 4)


def write_newc(entries: List[Entry]) -> bytes:
    """Return the archive bytes for ``entries`` followed by the TRAILER!!! record."""
    out = io.BytesIO()
    for ino, (path, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], start=1):
        name = path.lstrip("/").encode()
        head = _header(ino if path != "TRAILER!!!" else 0, mode, len(data), name)
        out.write(head + name + b"\0")
        out.write(_pad(len(head) + len(name) + 1))
        out.write(data)
        out.write(_pad(len(data)))
    return out.getvalue()


def dir_entry(path: str) -> Entry:
    return (path, stat.S_IFDIR | 0o755, b"")


def file_entry(path: str, data: bytes, mode: int = 0o644) -> Entry:
    return (path, stat.S_IFREG | mode, data)


def symlink_entry(path: str, target: str) -> Entry:
    return (path, stat.S_IFLNK | 0o777, target.encode())
