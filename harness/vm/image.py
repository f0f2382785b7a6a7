"""Build and cache the Debian bookworm guest image from Debian packages.

The recipe is ``vm/packages.txt``, the guest files in ``vm/guest`` and ``vm/initrd``, and
this module's ``BUILD_VERSION``. Its hash names the cache directory, so an image is rebuilt
only when its recipe changes. Build steps (each reported with its time; a failure names
the step, the command and the log):

  1 debootstrap   minbase bookworm + vm/packages.txt (Debian packages only)
  2 kernel        the stock linux-image-amd64, fetched with apt inside the new root and
                  unpacked with ``dpkg-deb --fsys-tarfile | tar --keep-directory-symlink``
                  (``dpkg -x`` would break the merged-usr /lib link: the guest panics);
                  then the out-of-tree modules of ``vm/kmod/<name>/`` (a Kbuild file and C
                  sources) are compiled against that kernel's headers (installed for the
                  build, then removed) into /lib/modules/<kver>/extra. A module that does not
                  build does not stop the image: ``image.json`` says why (``kmod``). A
                  directory with a ``kernel-tree`` file instead rebuilds a stock module from
                  the kernel's own sources with one edit (harness.vm.kernel_tree)
  3 guest files   busybox init, agent, rc script
  4 initrd        a tiny busybox initramfs that loads virtio_blk + ext4 (they are modules)
  5 filesystem    ``mkfs.ext4 -d`` (no loop mount needed)
"""
from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import lzma
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO, Union

from harness.errors import HarnessError
from harness.paths import cache_dir, project_file
from harness.vm import cpio, kernel_tree

BUILD_VERSION = "2"
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
SECURITY_MIRROR = "http://deb.debian.org/debian-security"
KERNEL_META = "linux-image-amd64"
#: modules the initrd loads, with their dependencies resolved by modprobe --show-depends
INITRD_MODULES = ["virtio_pci", "virtio_blk", "crc32c_generic", "ext4"]
HOST_TOOLS = {"debootstrap": "debootstrap", "mkfs.ext4": "e2fsprogs", "chroot": "coreutils"}


@dataclass
class Image:
    """A built guest image in the cache."""
    directory: Path

    @property
    def kernel(self) -> Path:
        return self.directory / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.directory / "initrd.gz"

    @property
    def rootfs(self) -> Path:
        return self.directory / "rootfs.img"

    @property
    def meta(self) -> dict:
        return json.loads((self.directory / "image.json").read_text())

    def complete(self) -> bool:
        return all(p.exists() for p in (self.kernel, self.initrd, self.rootfs,
                                        self.directory / "image.json"))


def recipe_files() -> List[Path]:
    vm_dir = project_file("vm")
    files = [vm_dir / "packages.txt", vm_dir / "initrd" / "init"]
    files += sorted(p for p in (vm_dir / "guest").iterdir()
                    if p.is_file() and p.suffix != ".pyc")  # not an installed copy's __pycache__
    return files + kmod_files()


def kmod_sources() -> List[Path]:
    """The out-of-tree kernel modules built into the image: one directory each in vm/kmod."""
    kmod = project_file("vm", "kmod")
    return sorted(d for d in kmod.iterdir() if d.is_dir()) if kmod.is_dir() else []


def kmod_files() -> List[Path]:
    return [p for d in kmod_sources() for p in sorted(d.iterdir())
            if p.is_file() and (p.name in ("Kbuild", kernel_tree.TREE_FILE)
                                or p.suffix in (".c", ".h", ".py"))]


def package_list() -> List[str]:
    lines = project_file("vm", "packages.txt").read_text().splitlines()
    return [l.split("#")[0].strip() for l in lines if l.split("#")[0].strip()]


def recipe_hash() -> str:
    h = hashlib.sha256(f"build {BUILD_VERSION} {SUITE} {KERNEL_META}\n".encode())
    for path in recipe_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def image_dir() -> Path:
    return cache_dir() / "vm" / recipe_hash()


def cached_image() -> Optional[Image]:
    image = Image(image_dir())
    return image if image.complete() else None


class StepFailed(HarnessError):
    pass


class Builder:
    """Runs the build steps, reporting progress on ``out``; all output goes to build.log."""

    def __init__(self, target: Path, mirror: str, out: TextIO = sys.stderr):
        self.target = target
        self.work = target.parent / (target.name + ".build")
        self.root = self.work / "rootfs"
        self.log_path = self.work / "build.log"
        self.mirror = mirror
        self.out = out
        self.steps: List[tuple] = []

    # -- helpers -----------------------------------------------------------------
    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def sh(self, step: str, argv: Union[str, List[str]], *, shell: bool = False,
           env: Optional[Dict[str, str]] = None) -> str:
        """Run a command, logging its output; a failure raises StepFailed naming the step."""
        with open(self.log_path, "a") as log:
            log.write(f"\n$ {argv if shell else ' '.join(argv)}\n")
            log.flush()
            try:
                proc = subprocess.Popen(argv, shell=shell, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, errors="replace",
                                        env=env)
            except FileNotFoundError as err:
                raise StepFailed(f"VM image build failed at step '{step}': "
                                 f"{err.filename} is not installed on this host") from None
            captured = []
            assert proc.stdout is not None  # stdout=PIPE
            for line in proc.stdout:
                log.write(line)
                captured.append(line)
                if self.out.isatty():
                    short = line.strip()[:70]
                    print(f"\r\033[K    {short}", end="", file=self.out, flush=True)
            rc = proc.wait()
        if self.out.isatty():
            print("\r\033[K", end="", file=self.out, flush=True)
        if rc != 0:
            tail = "".join(captured[-12:])
            raise StepFailed(
                f"VM image build failed at step '{step}': command exited {rc}: "
                f"{argv if shell else ' '.join(argv)}\n--- last lines ---\n{tail}"
                f"--- full log: {self.log_path}")
        return "".join(captured)

    def step(self, number: int, total: int, name: str, func: Callable[[], None]) -> None:
        self.say(f"  [{number}/{total}] {name} ...")
        t0 = time.monotonic()
        func()
        dt = time.monotonic() - t0
        self.steps.append((name, round(dt, 1)))
        self.say(f"  [{number}/{total}] {name} done in {dt:.0f} s")

    # -- steps -------------------------------------------------------------------
    def debootstrap(self) -> None:
        pkgs = ",".join(package_list())
        self.sh("debootstrap", ["debootstrap", "--variant=minbase", f"--include={pkgs}",
                                SUITE, str(self.root), self.mirror])

    def kernel(self) -> None:
        sources = (f"deb {self.mirror} {SUITE} main\n"
                   f"deb {self.mirror} {SUITE}-updates main\n"
                   f"deb {SECURITY_MIRROR} {SUITE}-security main\n")
        (self.root / "etc/apt/sources.list").write_text(sources)
        shutil.copy("/etc/resolv.conf", self.root / "etc/resolv.conf")
        debs = self.work / "debs"
        debs.mkdir(exist_ok=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive", LC_ALL="C")
        self.sh("kernel", ["chroot", str(self.root), "apt-get", "update", "-q"], env=env)
        deps = self.sh("kernel", ["chroot", str(self.root), "apt-cache", "depends", KERNEL_META],
                       env=env)
        names = [l.split(":", 1)[1].strip() for l in deps.splitlines()
                 if l.strip().startswith("Depends:") and "linux-image-" in l]
        if not names:
            raise StepFailed(f"VM image build failed at step 'kernel': {KERNEL_META} has no "
                             f"linux-image dependency in the archive\n{deps}")
        self.sh("kernel", ["chroot", str(self.root), "sh", "-c",
                           f"cd /tmp && apt-get download -q {names[0]} && mv /tmp/*.deb /root/"],
                env=env)
        deb = next((self.root / "root").glob("linux-image-*.deb"))
        self.kernel_version = kernel_tree.package_version(deb.name)
        self.sh("kernel", f"dpkg-deb --fsys-tarfile '{deb}' | "
                          f"tar -x --keep-directory-symlink -C '{self.root}'", shell=True)
        deb.unlink()
        kver = sorted(p.name for p in (self.root / "lib/modules").iterdir())[-1]
        self.kmod = self.build_modules(kver, env)
        self.sh("kernel", ["chroot", str(self.root), "depmod", kver])
        shutil.copy(self.root / "boot" / f"vmlinuz-{kver}", self.work / "vmlinuz")
        self.kver = kver
        # keep the image small and its apt state clean
        self.sh("kernel", ["chroot", str(self.root), "apt-get", "clean"])
        shutil.rmtree(self.root / "var/lib/apt/lists", ignore_errors=True)
        (self.root / "var/lib/apt/lists/partial").mkdir(parents=True, exist_ok=True)

    def build_modules(self, kver: str, env: Dict[str, str]) -> Dict[str, str]:
        """Compile each vm/kmod/<name> against ``kver``'s headers into lib/modules/<kver>/extra;
        returns ``{name: "built"}`` or ``{name: "failed: <why>"}`` (the image builds anyway)."""
        sources = kmod_sources()
        if not sources:
            return {}
        headers = f"linux-headers-{kver}"
        result: Dict[str, str] = {}
        try:
            self.sh("kernel modules", ["chroot", str(self.root), "apt-get", "install", "-y", "-q",
                                       "--no-install-recommends", headers], env=env)
        except StepFailed as err:
            return {d.name: f"failed: {headers} could not be installed: "
                            f"{str(err).splitlines()[0]}" for d in sources}
        extra = self.root / "lib/modules" / kver / "extra"
        extra.mkdir(parents=True, exist_ok=True)
        for src in sources:
            if kernel_tree.is_tree_module(src):
                result[src.name] = self.build_tree_module(src, kver, headers, env)
                continue
            build = self.root / "tmp/kmod" / src.name
            shutil.rmtree(build, ignore_errors=True)
            shutil.copytree(src, build)
            try:
                self.sh("kernel modules", ["chroot", str(self.root), "make", "-C",
                                           f"/usr/src/{headers}", f"M=/tmp/kmod/{src.name}",
                                           "modules"], env=env)
                for ko in build.glob("*.ko"):
                    shutil.copy(ko, extra / ko.name)
                result[src.name] = "built"
            except StepFailed as err:
                tail = str(err).split("--- last lines ---")[-1].strip().splitlines()
                result[src.name] = "failed: " + " | ".join(tail[-6:])
            shutil.rmtree(build, ignore_errors=True)
        # the headers and kbuild only served the build (gcc stays: mediumd is built in the guest)
        self.sh("kernel modules", ["chroot", str(self.root), "sh", "-c",
                                   f"apt-get purge -y -q {headers} 'linux-headers-*-common' "
                                   "'linux-kbuild-*'"], env=env)
        return result

    def build_tree_module(self, src: Path, kver: str, headers: str,
                          env: Dict[str, str]) -> str:
        """A stock module rebuilt from the kernel's own sources, edited by ``src/edit.py``
        (harness.vm.kernel_tree); installed outside /lib/modules. Returns "built" or
        "failed: <why>"."""
        package = kernel_tree.source_package(kver)
        build = self.root / "tmp/kmod" / src.name
        shutil.rmtree(build, ignore_errors=True)
        try:
            tree = kernel_tree.tree_path(src)
            self.sh("kernel modules", ["chroot", str(self.root), "sh", "-c",
                                       f"mkdir -p /tmp/src && cd /tmp/src && apt-get download "
                                       f"-q {package}={self.kernel_version}"], env=env)
            deb = next((self.root / "tmp/src").glob(f"{package}_*.deb"))
            self.say(f"      {src.name}: {tree} from {deb.name}")
            kernel_tree.extract_tree(deb, tree, build)
            shutil.rmtree(self.root / "tmp/src")
            self.sh("kernel modules", [sys.executable, str(src / kernel_tree.EDIT_SCRIPT),
                                       str(build)])
            jobs = str(os.cpu_count() or 1)
            self.sh("kernel modules", ["chroot", str(self.root), "make", "-j", jobs, "-C",
                                       f"/usr/src/{headers}", f"M=/tmp/kmod/{src.name}",
                                       "modules"], env=env)
            target = self.root / kernel_tree.INSTALL_DIR.relative_to("/") / src.name
            target.mkdir(parents=True, exist_ok=True)
            for ko in build.glob("*.ko"):
                self.sh("kernel modules", ["chroot", str(self.root), "strip", "--strip-debug",
                                           "-o", str(kernel_tree.INSTALL_DIR / src.name / ko.name),
                                           f"/tmp/kmod/{src.name}/{ko.name}"])
            return "built"
        except (HarnessError, StopIteration) as err:  # StepFailed is a HarnessError
            tail = str(err).split("--- last lines ---")[-1].strip().splitlines() or [repr(err)]
            return "failed: " + " | ".join(tail[-6:])
        finally:
            shutil.rmtree(build, ignore_errors=True)
            shutil.rmtree(self.root / "tmp/src", ignore_errors=True)

    def guest_files(self) -> None:
        vm_dir = project_file("vm")
        etc = self.root / "etc/harness"
        etc.mkdir(parents=True, exist_ok=True)
        for name in ("agent.py", "rc.sh"):
            shutil.copy(vm_dir / "guest" / name, etc / name)
            os.chmod(etc / name, 0o755)
        shutil.copy(vm_dir / "guest" / "inittab", self.root / "etc/inittab")
        shutil.copy(vm_dir / "guest" / "profile.sh", self.root / "etc/profile.d/harness.sh")
        init = self.root / "sbin/init"
        if init.is_symlink() or init.exists():
            init.unlink()
        init.symlink_to("/bin/busybox")
        (self.root / "etc/hostname").write_text("harness-vm\n")
        (self.root / "etc/hosts").write_text("127.0.0.1 localhost harness-vm\n")
        (self.root / "etc/fstab").write_text("")
        for d in ("mnt/code", "mnt/cwd", "mnt/cache"):
            (self.root / d).mkdir(parents=True, exist_ok=True)

    def initrd(self) -> None:
        # one call per module: modprobe reads further names as module parameters
        out = "".join(self.sh("initrd", ["chroot", str(self.root), "modprobe", "-S", self.kver,
                                         "--show-depends", m]) for m in INITRD_MODULES)
        entries = [cpio.dir_entry(d) for d in ("bin", "mod", "proc", "sys", "dev", "newroot")]
        order = []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2 or parts[0] != "insmod":
                continue
            src = self.root / Path(parts[1]).relative_to("/")  # paths inside the chroot
            data = src.read_bytes()
            name = src.name
            if name.endswith(".xz"):
                data, name = lzma.decompress(data), name[:-3]
            elif name.endswith(".zst"):
                raise StepFailed("VM image build failed at step 'initrd': zstd-compressed "
                                 f"modules are not supported ({src})")
            if name not in order:
                order.append(name)
                entries.append(cpio.file_entry(f"mod/{name}", data))
        busybox = (self.root / "bin/busybox").read_bytes()
        init = project_file("vm", "initrd", "init").read_bytes()
        entries += [cpio.file_entry("bin/busybox", busybox, 0o755),
                    cpio.file_entry("init", init, 0o755),
                    cpio.file_entry("modules.order", ("\n".join(order) + "\n").encode())]
        (self.work / "initrd.gz").write_bytes(gzip.compress(cpio.write_newc(entries), 6))

    def filesystem(self) -> None:
        used = int(self.sh("filesystem", ["du", "-sm", str(self.root)]).split()[0])
        size_mb = used + 1024  # room for the guest's own writes (snapshot=on discards them)
        img = self.work / "rootfs.img"
        self.sh("filesystem", ["mkfs.ext4", "-q", "-F", "-L", "harnessroot", "-E",
                               "root_owner=0:0", "-d", str(self.root), str(img), f"{size_mb}M"])

    def build(self) -> Image:
        if self.work.exists():
            shutil.rmtree(self.work)
        self.work.mkdir(parents=True)
        t0 = time.monotonic()
        total = 5
        self.step(1, total, "debootstrap (Debian packages, the longest step)", self.debootstrap)
        self.step(2, total, "kernel (stock linux-image-amd64)", self.kernel)
        self.step(3, total, "guest files (init, agent)", self.guest_files)
        self.step(4, total, "initrd (busybox + virtio/ext4 modules)", self.initrd)
        self.step(5, total, "filesystem image (mkfs.ext4 -d)", self.filesystem)
        meta = {"recipe_hash": recipe_hash(), "kernel": self.kver, "suite": SUITE,
                "kmod": getattr(self, "kmod", {}),
                "packages": package_list(), "build_seconds": round(time.monotonic() - t0, 1),
                "steps": self.steps, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        (self.work / "image.json").write_text(json.dumps(meta, indent=2))
        shutil.rmtree(self.root)
        if self.target.exists():
            shutil.rmtree(self.target)
        os.replace(self.work, self.target)  # atomic: a half-built image is never "cached"
        return Image(self.target)


def check_build_host() -> None:
    if os.geteuid() != 0:
        raise HarnessError("building the VM image needs root (debootstrap and chroot)",
                           hint="run as root, e.g. sudo harness vm build")
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in HOST_TOOLS.items()
               if shutil.which(tool) is None]
    if missing:
        raise HarnessError("building the VM image needs: " + ", ".join(missing),
                           hint="apt-get install debootstrap e2fsprogs qemu-system-x86")


def ensure_image(*, rebuild: bool = False, out: TextIO = sys.stderr) -> Image:
    """Return the cached image for the current recipe, building it first if needed."""
    image = cached_image()
    if image is not None and not rebuild:
        return image
    check_build_host()
    lock_path = cache_dir() / "vm" / "build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("harness: another harness process is building the VM image; waiting for it",
                  file=out, flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
            image = cached_image()
            if image is not None:
                return image
        return _build_locked(out)


def _build_locked(out: TextIO) -> Image:
    mirror = os.environ.get("HARNESS_DEBIAN_MIRROR", DEFAULT_MIRROR)
    target = image_dir()
    print(f"harness: building the VM image (recipe {recipe_hash()}, {SUITE} from {mirror}); "
          f"this takes a few minutes once, then it is cached in {target}", file=out, flush=True)
    t0 = time.monotonic()
    builder = Builder(target, mirror, out)
    try:
        image = builder.build()
    except BaseException:
        # keep build.log for the user; drop the half-made root tree (about 1 GB)
        shutil.rmtree(builder.root, ignore_errors=True)
        print(f"harness: image build stopped; nothing was cached (log: {builder.log_path})",
              file=out)
        raise
    print(f"harness: VM image ready in {time.monotonic() - t0:.0f} s", file=out, flush=True)
    return image
