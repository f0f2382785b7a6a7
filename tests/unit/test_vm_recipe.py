"""The pure parts of the VM substrate: initramfs archive, recipe hashing, test summing."""
import shutil
import stat
import subprocess

import pytest

from harness.cli.test import marker_expression
from harness.errors import HarnessError
from harness.vm import cpio, image


def parse_newc(data: bytes):
    """An independent reader of cpio newc, to check the writer."""
    out, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701", f"bad magic at {pos}"
        fields = [int(data[pos + 6 + 8 * i: pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_start = pos + 110
        name = data[name_start:name_start + namesize - 1].decode()
        pos = (name_start + namesize + 3) & ~3
        body = data[pos:pos + size]
        pos = (pos + size + 3) & ~3
        if name == "TRAILER!!!":
            return out
        out.append((name, mode, body))


def test_newc_round_trip():
    entries = [cpio.dir_entry("bin"), cpio.file_entry("bin/tool", b"\x7fELFxyz", 0o755),
               cpio.symlink_entry("sbin", "bin"), cpio.file_entry("init", b"#!/bin/sh\n", 0o755)]
    got = parse_newc(cpio.write_newc(entries))
    assert [(n, m, b) for n, m, b in got] == [(p, m, d) for p, m, d in entries]
    assert stat.S_ISDIR(got[0][1]) and stat.S_ISREG(got[1][1]) and stat.S_ISLNK(got[2][1])


@pytest.mark.skipif(shutil.which("cpio") is None, reason="no cpio binary to cross-check")
def test_newc_readable_by_gnu_cpio(tmp_path):
    data = cpio.write_newc([cpio.dir_entry("d"), cpio.file_entry("d/f", b"hello")])
    listing = subprocess.run(["cpio", "-it"], input=data, capture_output=True).stdout.decode()
    assert listing.split() == ["d", "d/f"]


def test_recipe_hash_follows_package_list(tmp_path, monkeypatch):
    vm = tmp_path / "vm"
    (vm / "guest").mkdir(parents=True)
    (vm / "initrd").mkdir()
    (vm / "initrd" / "init").write_text("init")
    (vm / "guest" / "agent.py").write_text("agent")
    (vm / "packages.txt").write_text("# comment\niw\niperf3  # traffic\n")
    monkeypatch.setattr(image, "project_file", lambda *p: tmp_path.joinpath(*p))
    first = image.recipe_hash()
    assert image.package_list() == ["iw", "iperf3"]
    assert image.recipe_hash() == first  # stable
    (vm / "guest" / "__pycache__").mkdir()  # an installed copy byte-compiles agent.py
    (vm / "guest" / "__pycache__" / "agent.cpython-311.pyc").write_bytes(b"\0")
    assert image.recipe_hash() == first
    (vm / "packages.txt").write_text("iw\niperf3\ntcpdump\n")
    assert image.recipe_hash() != first


def test_real_recipe_lists_the_tools_the_issue_names():
    pkgs = set(image.package_list())
    for needed in ["iperf3", "iw", "iproute2", "hostapd", "wpasupplicant", "openvswitch-switch",
                   "tcpdump", "ethtool", "kmod", "python3", "python3-pyroute2", "python3-yaml"]:
        assert needed in pkgs, needed


def test_marker_expression():
    assert marker_expression(False, False, False) == "not slow"
    assert marker_expression(True, False, False) == "not emulation and not parallel and not slow"
    assert marker_expression(False, True, True) == "(emulation or parallel)"
    with pytest.raises(HarnessError):
        marker_expression(True, True, False)
