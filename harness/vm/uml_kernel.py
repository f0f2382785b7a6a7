"""Build and cache the User-Mode Linux kernel every run boots (the ``uml`` engine).

The recipe: Debian's ``linux-source-<series>`` package (fetched with a private apt
configuration, so the host's apt sources are never touched), ``vm/uml/config.fragment``
merged over ``make ARCH=um defconfig``, the patches in ``vm/uml/patches/<series>/`` and the
harness's own kernel code of ``vm/kmod/`` built in. Its hash names the cache folder, so a
kernel is built once per machine and rebuilt only when the recipe changes. Everything is
built in (no modules): the guest's ``modprobe`` finds them through ``modules.builtin``.

Edited builds of a stock module (``vm/kmod/<name>/kernel-tree`` + ``edit.py``: paper 002's
mac80211) cannot be loaded into a kernel without modules, so each is a second kernel binary,
``linux-<variant>``, built from the same tree with the edit applied; a run that asks for the
variant boots that binary (docs/engine.md).

Steps, each reported with its time (a failure names the step, the command and the log):
fetch, unpack, configure, patch, compile (with progress and an estimate), install, variants.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, TextIO

from harness.errors import HarnessError
from harness.paths import cache_dir, project_file

#: Bumped when the build steps change what they produce.
BUILD_VERSION = "1"
MIRROR = "http://deb.debian.org/debian"
#: Host programs the build needs, with the Debian package of each.
BUILD_TOOLS = {"gcc": "gcc", "make": "make", "flex": "flex", "bison": "bison", "bc": "bc",
               "xz": "xz-utils", "patch": "patch", "apt-get": "apt", "dpkg-deb": "dpkg",
               "perl": "perl"}
#: Options the fragment sets that the engine cannot run without; checked after configure, so a
#: source whose Kconfig dropped one fails the build instead of the first run.
REQUIRED = ("CONFIG_UML_TIME_TRAVEL_SUPPORT=y", "CONFIG_HOSTFS=y", "CONFIG_MAC80211_HWSIM=y",
            "CONFIG_MAC80211_MESH=y", "CONFIG_NET_SCH_NETEM=y", "CONFIG_OPENVSWITCH=y",
            "CONFIG_BATMAN_ADV=y", "CONFIG_TCP_CONG_WESTWOOD=y", "CONFIG_NF_TABLES=y")
#: Objects a build compiles, for the progress line: an estimate (not counted for either series).
EXPECTED_OBJECTS = 2600
#: Wall minutes said before a first build on 2 cores: measured builds took 4.9-7 (6.1) and
#: 13 (7.3) minutes without ccache, plus fetch, unpack and the variant relink.
EXPECTED_MINUTES = {"6.1": 6, "7.3": 15}


@dataclass(frozen=True)
class KernelRecipe:
    """A Debian kernel source the engine can be built from."""

    series: str            #: "6.1"
    suite: str             #: the Debian suite that carries it
    version: str           #: the package version this recipe was measured with
    boot_args: tuple = ()  #: words this kernel needs on its command line

    @property
    def package(self) -> str:
        return f"linux-source-{self.series}"


RECIPES: Dict[str, KernelRecipe] = {
    # the default: bookworm's kernel, the same TCP code as the QEMU guest's; UML 6.1 needs
    # patch 0001 to boot on a host with AMX (the FP state's size found at run time, as upstream
    # 6.13 does) and traces its processes with ptrace
    "6.1": KernelRecipe("6.1", "bookworm", "6.1.176-1"),
    # boots as it is and runs its processes under seccomp: about twice as fast; patch 0003
    # keeps the route "window" metric a bound on the receiver's window, as on 6.1; WPA2 data
    # from an access point stops after the first frame (docs/engine.md, "Which kernel")
    "7.3": KernelRecipe("7.3", "trixie-backports", "7.3.4-1~bpo13+1", ("seccomp=on",)),
}
DEFAULT_SERIES = "6.1"
#: ``HARNESS_UML_KERNEL``: which series to run on.
SERIES_ENV = "HARNESS_UML_KERNEL"


def recipe() -> KernelRecipe:
    name = os.environ.get(SERIES_ENV, DEFAULT_SERIES)
    if name not in RECIPES:
        raise HarnessError(f"{SERIES_ENV}={name!r}: allowed values are {', '.join(RECIPES)}")
    return RECIPES[name]


def uml_dir() -> Path:
    return project_file("vm", "uml")


def patch_files(series: str) -> List[Path]:
    folder = uml_dir() / "patches" / series
    return sorted(folder.glob("*.patch")) if folder.is_dir() else []


def builtin_kmods() -> List[Path]:
    """The harness's own kernel code built in: ``vm/kmod/<name>/`` with a Kbuild file."""
    kmod = project_file("vm", "kmod")
    return sorted(d for d in kmod.iterdir() if (d / "Kbuild").is_file()) if kmod.is_dir() else []


def variant_dirs() -> List[Path]:
    """Edited stock modules, each a second kernel binary: ``vm/kmod/<name>/kernel-tree``."""
    kmod = project_file("vm", "kmod")
    return sorted(d for d in kmod.iterdir() if (d / "kernel-tree").is_file()) if kmod.is_dir() else []


def tree_path(kmod_dir: Path) -> str:
    """The kernel source directory an edited module is built from (``net/mac80211``): the
    first line of its ``kernel-tree`` that is neither empty nor a comment."""
    for line in (kmod_dir / "kernel-tree").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            if line.startswith("/") or ".." in Path(line).parts:
                raise HarnessError(f"{kmod_dir / 'kernel-tree'}: {line!r} is not a relative "
                                   "path inside the kernel tree")
            return line.rstrip("/")
    raise HarnessError(f"{kmod_dir / 'kernel-tree'} names no source directory")


def variant_name(directory: Path) -> str:
    """``mac80211-fail-avg-3.12`` -> ``fail-avg-3.12`` (what a policy asks for)."""
    return directory.name.split("-", 1)[1] if "-" in directory.name else directory.name


def recipe_files(r: KernelRecipe) -> List[Path]:
    files = [uml_dir() / "config.fragment"] + patch_files(r.series)
    for d in builtin_kmods() + variant_dirs():
        files += sorted(p for p in d.iterdir() if p.is_file() and p.suffix in (".c", ".h", ".py", "")
                        and not p.name.startswith("."))
    return files


def recipe_hash(r: KernelRecipe) -> str:
    h = hashlib.sha256(f"uml {BUILD_VERSION} {r.package} {r.version} {r.suite}\n".encode())
    for path in recipe_files(r):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@dataclass
class UMLKernel:
    """A built kernel in the cache."""

    directory: Path
    meta: Dict[str, Any] = field(default_factory=dict)

    def binary(self, variant: Optional[str] = None) -> Path:
        return self.directory / ("linux" if not variant else f"linux-{variant}")

    def variants(self) -> List[str]:
        return [str(v) for v in self.meta.get("variants", [])]

    @property
    def release(self) -> str:
        return str(self.meta.get("release", "?"))

    def label(self) -> str:
        return f"Linux {self.release} (UML, Debian {self.meta.get('package_version', '?')})"

    @property
    def boot_args(self) -> List[str]:
        return [str(v) for v in self.meta.get("boot_args", [])]


def kernel_dir(r: Optional[KernelRecipe] = None) -> Path:
    override = os.environ.get("HARNESS_UML_KERNEL_DIR")
    if override:
        return Path(override)
    r = r or recipe()
    return cache_dir() / "uml" / f"{r.series}-{recipe_hash(r)}"


def cached_kernel(r: Optional[KernelRecipe] = None) -> Optional[UMLKernel]:
    d = kernel_dir(r)
    meta_file = d / "kernel.json"
    if not (meta_file.is_file() and (d / "linux").is_file()):
        return None
    return UMLKernel(d, json.loads(meta_file.read_text()))


def missing_tools() -> List[str]:
    return sorted({pkg for tool, pkg in BUILD_TOOLS.items() if shutil.which(tool) is None})


def ensure_kernel(out: TextIO = sys.stderr) -> UMLKernel:
    """The cached kernel, built first if this machine has none (once; others wait on a lock)."""
    r = recipe()
    kernel = cached_kernel(r)
    if kernel is not None:
        return kernel
    target = kernel_dir(r)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kernel = cached_kernel(r)
        if kernel is not None:
            return kernel
        missing = missing_tools()
        if missing:
            raise HarnessError(f"building the UML kernel needs {', '.join(missing)}, not "
                               "installed on this host",
                               hint="scripts/install-host-deps.sh (or apt-get install "
                                    f"{' '.join(missing)})")
        Builder(r, target, out).build()
    kernel = cached_kernel(r)
    assert kernel is not None
    return kernel


class StepFailed(HarnessError):
    pass


class Builder:
    """The build steps, each reported on ``out``; every command's output goes to build.log."""

    def __init__(self, r: KernelRecipe, target: Path, out: TextIO):
        self.r = r
        self.target = target
        self.work = target.parent / (target.name + ".build")
        self.log_path = self.work / "build.log"
        self.out = out
        self.tree = self.work / "src"
        self.fetched_version = r.version
        self.jobs = max(1, (os.cpu_count() or 1)) + 1

    def say(self, text: str) -> None:
        print(f"harness: {text}", file=self.out, flush=True)

    def sh(self, step: str, argv: List[str], *, cwd: Optional[Path] = None,
           env: Optional[Dict[str, str]] = None,
           on_line: Optional[Callable[[str], None]] = None) -> str:
        with open(self.log_path, "a") as log:
            log.write(f"\n$ {' '.join(argv)}\n")
            log.flush()
            try:
                proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, errors="replace",
                                        env=env)
            except FileNotFoundError as err:
                raise StepFailed(f"UML kernel build failed at step '{step}': {err.filename} "
                                 "is not installed on this host",
                                 hint="scripts/install-host-deps.sh") from None
            captured: List[str] = []
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                captured.append(line)
                del captured[:-40]
                if on_line is not None:
                    on_line(line)
            rc = proc.wait()
        if rc != 0:
            raise StepFailed(f"UML kernel build failed at step '{step}': command exited {rc}: "
                             f"{' '.join(argv)}\n--- last lines ---\n{''.join(captured[-15:])}"
                             f"--- full log: {self.log_path}")
        return "".join(captured)

    def build(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        self.say(f"building the UML kernel from Debian's {self.r.package} ({self.r.suite}), "
                 f"once per machine: about {EXPECTED_MINUTES[self.r.series]} minutes on 2 "
                 f"cores; later runs boot it in under a second (log: {self.log_path})")
        t0 = time.monotonic()
        steps = [("fetch", self.fetch), ("unpack", self.unpack), ("patch", self.patch),
                 ("configure", self.configure), ("compile", self.compile),
                 ("install", self.install), ("variants", self.variants)]
        times = {}
        for i, (name, func) in enumerate(steps, 1):
            self.say(f"UML kernel [{i}/{len(steps)}] {name} ...")
            s0 = time.monotonic()
            func()
            times[name] = round(time.monotonic() - s0, 1)
            self.say(f"UML kernel [{i}/{len(steps)}] {name} done in {times[name]:.0f} s")
        meta = json.loads((self.target / "kernel.json").read_text())
        meta["build_seconds"] = times
        _write_json(self.target / "kernel.json", meta)
        shutil.rmtree(self.work, ignore_errors=True)
        self.say(f"UML kernel ready in {(time.monotonic() - t0) / 60:.1f} min: {self.target}")

    # -- steps -------------------------------------------------------------------
    def apt_env(self) -> Dict[str, str]:
        """A private apt configuration: its own sources, lists and cache, nothing of the host's."""
        base = self.target.parent / "apt"
        for sub in ("lists/partial", "cache/archives/partial", "etc/sources.list.d",
                    "etc/preferences.d"):
            (base / sub).mkdir(parents=True, exist_ok=True)
        (base / "etc" / "sources.list").write_text(f"deb {MIRROR} {self.r.suite} main\n")
        conf = base / "apt.conf"
        conf.write_text(
            f'Dir::Etc::SourceList "{base}/etc/sources.list";\n'
            f'Dir::Etc::SourceParts "{base}/etc/sources.list.d";\n'
            f'Dir::Etc::Preferences "{base}/etc/preferences.d/none";\n'
            f'Dir::Etc::PreferencesParts "{base}/etc/preferences.d";\n'
            f'Dir::State::Lists "{base}/lists";\n'
            f'Dir::Cache "{base}/cache";\n'
            'Acquire::Languages "none";\n')
        return dict(os.environ, APT_CONFIG=str(conf), LC_ALL="C", DEBIAN_FRONTEND="noninteractive")

    def fetch(self) -> None:
        env = self.apt_env()
        self.sh("fetch", ["apt-get", "update", "-q"], env=env)
        policy = self.sh("fetch", ["apt-cache", "madison", self.r.package], env=env)
        versions = [l.split("|")[1].strip() for l in policy.splitlines() if "|" in l]
        if not versions:
            raise StepFailed(f"UML kernel build failed at step 'fetch': {self.r.package} is not "
                             f"in {MIRROR} {self.r.suite}")
        version = self.r.version if self.r.version in versions else versions[0]
        if version != self.r.version:
            self.say(f"note: {self.r.package} {self.r.version} is gone from the mirror; "
                     f"building {version} (results name the kernel they ran on)")
        self.fetched_version = version
        self.sh("fetch", ["apt-get", "download", "-q", f"{self.r.package}={version}"],
                cwd=self.work, env=env)

    def unpack(self) -> None:
        debs = list(self.work.glob(f"{self.r.package}_*.deb"))
        if len(debs) != 1:
            raise StepFailed(f"UML kernel build failed at step 'unpack': expected one "
                             f"{self.r.package} .deb in {self.work}, found {len(debs)}")
        self.sh("unpack", ["dpkg-deb", "-x", str(debs[0]), str(self.work / "deb")])
        tarball = next((self.work / "deb" / "usr" / "src").glob("linux-source-*.tar.xz"))
        self.tree.mkdir()
        self.sh("unpack", ["tar", "-xf", str(tarball), "-C", str(self.tree),
                           "--strip-components=1"])
        shutil.rmtree(self.work / "deb")
        debs[0].unlink()

    def patch(self) -> None:
        for p in patch_files(self.r.series):
            self.sh("patch", ["patch", "-p1", "--forward", "-i", str(p)], cwd=self.tree)
        for d in builtin_kmods():  # the harness's own modules, built in under net/ipv4
            for src in sorted(d.glob("*.c")):
                shutil.copy(src, self.tree / "net" / "ipv4" / src.name)
                with open(self.tree / "net" / "ipv4" / "Makefile", "a") as mk:
                    mk.write(f"obj-y += {src.stem}.o\n")

    def make(self, step: str, *targets: str,
             on_line: Optional[Callable[[str], None]] = None) -> str:
        argv = ["make", "ARCH=um", f"-j{self.jobs}"] + list(targets)
        if shutil.which("ccache"):
            argv.insert(2, "CC=ccache gcc")
        env = dict(os.environ, ARCH="um", LC_ALL="C",
                   KBUILD_BUILD_TIMESTAMP="@0", KBUILD_BUILD_VERSION="1",
                   KBUILD_BUILD_USER="harness", KBUILD_BUILD_HOST="harness")
        return self.sh(step, argv, cwd=self.tree, env=env, on_line=on_line)

    def configure(self) -> None:
        self.make("configure", "defconfig")
        self.sh("configure", ["scripts/kconfig/merge_config.sh", "-m", ".config",
                              str(uml_dir() / "config.fragment")], cwd=self.tree,
                env=dict(os.environ, ARCH="um"))
        self.make("configure", "olddefconfig")
        config = (self.tree / ".config").read_text().splitlines()
        lost = [opt for opt in REQUIRED if opt not in config]
        if lost:
            raise StepFailed(f"UML kernel build failed at step 'configure': {self.r.package} "
                             f"dropped {', '.join(lost)} (a Kconfig dependency): "
                             "vm/uml/config.fragment needs an update")

    def compile(self) -> None:
        state = {"n": 0, "last": time.monotonic()}
        t0 = time.monotonic()

        def progress(line: str) -> None:
            if not line.startswith("  CC "):
                return
            state["n"] += 1
            now = time.monotonic()
            if now - state["last"] >= 15:
                state["last"] = now
                frac = min(0.99, state["n"] / EXPECTED_OBJECTS)
                left = (now - t0) / frac * (1 - frac) if frac > 0.02 else EXPECTED_MINUTES[self.r.series] * 60
                self.say(f"UML kernel compile: {frac:.0%} ({state['n']} objects, "
                         f"about {left / 60:.0f} min left)")
        self.make("compile", "linux", on_line=progress)

    def install(self) -> None:
        self.target.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.tree / "linux", self.target / "linux.tmp")
        os.replace(self.target / "linux.tmp", self.target / "linux")
        release = (self.tree / "include" / "config" / "kernel.release").read_text().strip()
        for name in ("modules.builtin", "modules.builtin.modinfo"):
            if not (self.tree / name).exists():
                self.make("install", name)
            shutil.copy(self.tree / name, self.target / name)
        _write_json(self.target / "kernel.json", {
            "series": self.r.series, "package": self.r.package,
            "package_version": self.fetched_version, "release": release,
            "recipe": recipe_hash(self.r), "boot_args": list(self.r.boot_args),
            "patches": [p.name for p in patch_files(self.r.series)], "variants": [],
            "builtin_kmods": [d.name for d in builtin_kmods()]})

    def variants(self) -> None:
        """One more binary per edited stock module: edit, relink, copy, undo the edit."""
        names = []
        for d in variant_dirs():
            sub = self.tree / tree_path(d)
            saved = {p: p.read_bytes() for p in sub.iterdir() if p.is_file()}
            self.sh("variants", [sys.executable, str(d / "edit.py"), str(sub)])
            self.make("variants", "linux")
            name = variant_name(d)
            shutil.copy(self.tree / "linux", self.target / f"linux-{name}")
            for p, data in saved.items():
                p.write_bytes(data)
            names.append(name)
        meta = json.loads((self.target / "kernel.json").read_text())
        meta["variants"] = names
        _write_json(self.target / "kernel.json", meta)


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)

