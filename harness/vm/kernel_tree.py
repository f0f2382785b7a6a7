"""Modules rebuilt from the guest kernel's own source tree (``vm/kmod/<name>/kernel-tree``).

Some readings need a stock kernel module with one behaviour changed (paper 002: mac80211's
mesh link-failure average as Linux 3.12 had it). Such a module is not written by us: its
sources come from Debian's ``linux-source-<major.minor>`` package of exactly the guest
kernel's version, are edited by the directory's ``edit.py`` (which fails when the code it
expects is not there) and built against the guest kernel's headers, so every exported
symbol's version matches the modules that use it. The result replaces a stock module, so it
is installed under :data:`INSTALL_DIR`, outside ``/lib/modules`` where depmod would index it:
the kernel plumbing loads it only when an experiment asks for it (``harness.kernel.mac80211``).

Pure helpers here; the build itself is a step of ``harness.vm.image.Builder``.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
from pathlib import Path, PurePosixPath
from typing import List

from harness.errors import HarnessError

#: where the guest image holds rebuilt modules: ``<INSTALL_DIR>/<kmod dir name>/<module>.ko``
INSTALL_DIR = PurePosixPath("/usr/lib/harness-kmod")
#: the file naming the source directory (and marking a kmod directory as a tree module)
TREE_FILE = "kernel-tree"
#: the script that edits the copied sources (``edit.py <dir>``)
EDIT_SCRIPT = "edit.py"


def tree_path(kmod_dir: Path) -> str:
    """The kernel source directory a tree module is built from (``net/mac80211``): the first
    line of ``kernel-tree`` that is neither empty nor a comment."""
    for line in (kmod_dir / TREE_FILE).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            if line.startswith("/") or ".." in PurePosixPath(line).parts:
                raise HarnessError(f"{kmod_dir / TREE_FILE}: {line!r} is not a relative path "
                                   "inside the kernel tree")
            return line.rstrip("/")
    raise HarnessError(f"{kmod_dir / TREE_FILE} names no source directory")


def is_tree_module(kmod_dir: Path) -> bool:
    return (kmod_dir / TREE_FILE).is_file()


def source_package(kver: str) -> str:
    """Debian's source package for a kernel release: ``6.1.0-57-amd64`` -> ``linux-source-6.1``."""
    m = re.match(r"(\d+)\.(\d+)", kver)
    if not m:
        raise HarnessError(f"kernel release {kver!r} does not start with <major>.<minor>")
    return f"linux-source-{m.group(1)}.{m.group(2)}"


def package_version(deb_name: str) -> str:
    """The version in a .deb's file name (``linux-image-..._6.1.192-3_amd64.deb`` ->
    ``6.1.192-3``); the kernel image and its source package share it."""
    parts = deb_name.split("_")
    if len(parts) != 3 or not parts[2].endswith(".deb"):
        raise HarnessError(f"{deb_name!r} is not a Debian package file name "
                           "(<name>_<version>_<arch>.deb)")
    return parts[1].replace("%3a", ":")


def extract_tree(source_deb: Path, tree: str, dest: Path) -> List[Path]:
    """Copy ``<tree>/*`` of the kernel source tarball inside ``source_deb`` into ``dest``
    (files only, no subdirectories: a module's own directory). Streams: the 140 MB tarball
    is never written to disk."""
    dest.mkdir(parents=True, exist_ok=True)
    written: List[Path] = []
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(source_deb)],
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as outer:
            for member in outer:
                if not re.fullmatch(r"\./usr/src/linux-source-[\d.]+\.tar\.xz", member.name):
                    continue
                inner_file = outer.extractfile(member)
                assert inner_file is not None
                with tarfile.open(fileobj=inner_file, mode="r|xz") as inner:
                    for item in inner:
                        path = PurePosixPath(item.name)
                        if (item.isfile() and len(path.parts) >= 2
                                and str(PurePosixPath(*path.parts[1:-1])) == tree):
                            src = inner.extractfile(item)
                            assert src is not None
                            target = dest / path.name
                            with open(target, "wb") as out:
                                shutil.copyfileobj(src, out)
                            written.append(target)
                break
    finally:
        proc.stdout.close()
        proc.wait()
    if not written:
        raise HarnessError(f"{source_deb.name} holds no files under {tree}/")
    return written
