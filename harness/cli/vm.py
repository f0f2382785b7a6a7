"""``harness vm``: build, inspect and use the Debian guest."""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from typing import TYPE_CHECKING

from harness.cli.options import add_clock_option
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("vm", help="build, boot and run commands in the Debian guest",
                       description="The guest is used automatically when this host has no "
                                   "mac80211_hwsim; these commands manage it directly.")
    vsub = p.add_subparsers(dest="vm_command", metavar="VM_COMMAND")
    vsub.required = True
    b = vsub.add_parser("build", help="build the guest image (cached by recipe hash)")
    b.add_argument("--rebuild", action="store_true", help="build even if a cached image exists")
    b.set_defaults(func=cmd_build)
    r = vsub.add_parser("run", help="run a shell command in a fresh guest, streaming its output",
                        description="Example: harness vm run -- 'iw list | head'. The command runs "
                                    "in your current directory (shared as /mnt/cwd or inside "
                                    "/mnt/code); its exit code becomes harness's.")
    r.add_argument("cmd", nargs=argparse.REMAINDER, help="the command (after --)")
    add_clock_option(r)
    r.set_defaults(func=cmd_run)
    s = vsub.add_parser("shell", help="an interactive shell in a fresh guest (exit powers off)")
    add_clock_option(s)
    s.set_defaults(func=cmd_shell)
    st = vsub.add_parser("status", help="the cached image and accelerator")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_status)
    c = vsub.add_parser("clean-cache", help="delete every cached image")
    c.set_defaults(func=cmd_clean_cache)


def cmd_build(args: argparse.Namespace) -> int:
    from harness.vm.image import ensure_image
    image = ensure_image(rebuild=args.rebuild)
    meta = image.meta
    print(f"image {meta['recipe_hash']}: kernel {meta['kernel']}, built in "
          f"{meta['build_seconds']} s, at {image.directory}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from harness.vm.dispatch import run_script_in_vm
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        raise HarnessError("vm run: no command given", hint="harness vm run -- uname -a")
    script = cmd[0] if len(cmd) == 1 else " ".join(shlex.quote(c) for c in cmd)
    return run_script_in_vm(script, host_paths=False)  # show the guest as it is


def cmd_shell(args: argparse.Namespace) -> int:
    from harness.vm.dispatch import boot
    if not sys.stdin.isatty():
        raise HarnessError("vm shell needs a terminal", hint="use 'harness vm run -- CMD' in scripts")
    vm = boot(interactive=True)
    print("harness: booting the VM; the shell appears on this terminal (Ctrl-A X kills the VM)",
          file=sys.stderr)
    vm.start()
    try:
        return vm.wait()
    finally:
        vm.stop()


def cmd_status(args: argparse.Namespace) -> int:
    from harness.vm.image import cached_image, image_dir, recipe_hash
    image = cached_image()
    status = {"recipe_hash": recipe_hash(), "cached": image is not None,
              "directory": str(image_dir())}
    if image is not None:
        status.update(image.meta)
        status["size_mb"] = round(sum(p.stat().st_blocks * 512 for p in image.directory.iterdir())
                                  / 2**20)
    if args.json:
        print(json.dumps(status, indent=2))
    else:
        for k in ("recipe_hash", "cached", "directory", "kernel", "build_seconds", "size_mb"):
            if k in status:
                print(f"{k:14} {status[k]}")
        kmod = status.get("kmod")
        for name, state in sorted(kmod.items() if isinstance(kmod, dict) else []):
            print(f"{'kmod':14} {name}: {state}")  # vm/kmod/<name>: built, or why not
    return 0


def cmd_clean_cache(args: argparse.Namespace) -> int:
    from harness.paths import cache_dir
    target = cache_dir() / "vm"
    if target.exists():
        shutil.rmtree(target)
        print(f"removed {target}")
    else:
        print("no cached image")
    return 0
