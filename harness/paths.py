"""Where the project's files and the harness cache live (the base layer: any package may import
it; it imports nothing of the project but the package itself)."""
from __future__ import annotations

import os
from pathlib import Path

import harness


def code_root() -> Path:
    """Directory holding the ``harness`` package (a checkout, or site-packages)."""
    return Path(harness.__file__).resolve().parent.parent


def project_file(*parts: str) -> Path:
    """A file of the project's recipe (``vm/``, ``mediumd/``), in a checkout or an install."""
    checkout = code_root().joinpath(*parts)
    if checkout.exists():
        return checkout
    installed = Path(harness.__file__).resolve().parent.joinpath("resources", *parts)
    return installed


def cache_dir() -> Path:
    """Per-user cache (images, KVM probe, guest builds); ``HARNESS_CACHE`` overrides it."""
    if os.environ.get("HARNESS_CACHE"):
        base = Path(os.environ["HARNESS_CACHE"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "wifi-tcp-harness"
    base.mkdir(parents=True, exist_ok=True)
    return base
