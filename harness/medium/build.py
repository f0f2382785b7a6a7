"""Build the mediumd binary for the machine it will run on, cached by a hash of its sources.

The sources are copied into ``<cache>/mediumd/<hash>/`` and built there with ``make``, so a
checkout shared into the VM is never written by the guest's compiler, and a host build and
a guest build (different glibc) never overwrite each other.
"""
from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

from harness.errors import HarnessError
from harness.paths import cache_dir, project_file

SOURCE_SUFFIXES = {".c", ".h", ".mk"}


def _sources(src: Path):
    for path in sorted(src.rglob("*")):
        if "build" in path.relative_to(src).parts or not path.is_file():
            continue
        if path.suffix in SOURCE_SUFFIXES or path.name == "Makefile":
            yield path


def source_hash() -> str:
    src = project_file("mediumd")
    h = hashlib.sha256(platform.machine().encode() + platform.libc_ver()[1].encode())
    for path in _sources(src):
        h.update(str(path.relative_to(src)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def ensure_mediumd(target: str = "mediumd") -> Path:
    """Return the path of a built ``mediumd`` (or ``mediumsim``), building it if needed.

    Each target has a build directory of its own, published whole: built under a fresh name,
    then renamed into place. Guests of one sweep share the cache over 9p, where a lock taken in
    one guest does not exclude the other; a target once added in place to the other target's
    directory was run (and copied into memory) by one guest while the other's linker was still
    writing it (measured: the first runs of a sweep at --jobs 2 after a source change failed,
    "mediumsim --links failed")."""
    src = project_file("mediumd")
    if not (src / "Makefile").exists():
        raise HarnessError(f"mediumd sources not found at {src}")
    work = cache_dir() / "mediumd" / f"{source_hash()}-{target}"
    binary = work / "build" / target
    if binary.exists():
        return runnable_copy(binary)
    if shutil.which("make") is None or shutil.which("gcc") is None:
        raise HarnessError("building mediumd needs gcc and make",
                           hint="apt-get install gcc make pkg-config libnl-genl-3-dev")
    # a name no other builder holds: guests booted alike have the same pids, so a pid-named
    # directory in the shared cache was removed under one guest's compiler by the other's
    # (measured: the first two runs of a sweep at --jobs 2); mkdtemp's mkdir is atomic
    work.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=work.parent, prefix=work.name + ".tmp"))
    tmp.chmod(0o755)  # mkdtemp's 0700 would become the cached build's mode
    for path in _sources(src):
        dest = tmp / path.relative_to(src)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
    proc = subprocess.run(["make", "-C", str(tmp), target], capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessError(f"building {target} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}",
                           hint="is libnl-genl-3-dev installed? (harness doctor)")
    try:
        os.replace(tmp, work)
    except OSError:  # another builder won the race: its build is whole
        shutil.rmtree(tmp, ignore_errors=True)
        if not binary.exists():
            raise
    return runnable_copy(binary)


#: Where the guest keeps its copies of built binaries (memory).
GUEST_BIN = Path("/run/harness-bin")


def runnable_copy(binary: Path) -> Path:
    """The binary to execute: in the guest a copy in memory, since one run from the shared
    cache is paged in from the host while it runs, and in virtual time each such wait makes
    the guest's clock jump (docs/engine.md); elsewhere the binary itself."""
    from harness.kernel.host import in_vm
    if not in_vm():
        return binary
    dest = GUEST_BIN / binary.parent.parent.name / binary.name
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}")
        shutil.copy2(binary, tmp)
        os.replace(tmp, dest)
    return dest
