"""The UML engine's pure logic: engine choice, the kernel recipe's key, the guest's command line,
CPU slots, which kernel a run boots. (Booting guests: tests/parallel/test_uml_sweeps.py.)"""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.experiment.sweep import Run
from harness.parallel.jobs import kernel_variant
from harness.parallel.worker import Job
from harness.vm import engine, uml_kernel
from harness.vm.uml import CPUSlot, UMLConfig, UMLGuest, host_cpus
from harness.vm.uml_kernel import UMLKernel


@pytest.fixture
def clean_env(monkeypatch):
    for key in ("HARNESS_ENGINE", "HARNESS_IN_VM"):
        monkeypatch.delenv(key, raising=False)
    return monkeypatch


def test_engine_default_is_uml_and_a_bad_value_names_the_allowed_ones(clean_env):
    assert engine.engine() == "uml"
    clean_env.setenv("HARNESS_ENGINE", "qemu")  # retired: refused with the allowed ones
    with pytest.raises(HarnessError, match="allowed values are uml, native"):
        engine.engine()
    with pytest.raises(HarnessError, match="--engine 'xen'"):
        engine.choose("xen")


def test_inside_a_guest_the_engine_is_native(clean_env):
    clean_env.setenv("HARNESS_ENGINE", "uml")
    clean_env.setenv("HARNESS_IN_VM", "1")
    assert engine.engine() == "native"


def fake_kernel(tmp_path: Path, variants=()) -> UMLKernel:
    return UMLKernel(tmp_path, {"release": "6.1.0", "variants": list(variants),
                                "boot_args": []})


def test_command_lines_of_two_runs_differ_only_in_run_folder_and_seed(tmp_path):
    """Everything else on the command line is the same for every run (the kernel mixes only
    HX_SEED into its random state: vm/uml/patches)."""
    kernel = fake_kernel(tmp_path)
    lines = []
    for seed, folder in ((1, "a"), (1, "b"), (2, "a")):
        guest = UMLGuest(kernel, UMLConfig(seed=seed))
        guest.rundir = tmp_path / folder
        lines.append(guest.command_line(Path("/init.sh")))
    differ = [(x, y) for x, y in zip(lines[0], lines[1]) if x != y]
    assert len(lines[0]) == len(lines[1]) and len(differ) == 1
    assert differ[0][0].startswith("HX_RUN=")
    differ = [(x, y) for x, y in zip(lines[0], lines[2]) if x != y]
    assert differ == [("HX_SEED=1", "HX_SEED=2")]
    assert "ro" in lines[0] and "rw" not in lines[0]  # the host's root is read-only
    assert "time-travel=inf-cpu" in lines[0]


def test_host_clock_guest_has_no_time_travel(tmp_path):
    guest = UMLGuest(fake_kernel(tmp_path), UMLConfig(clock="host"))
    guest.rundir = tmp_path
    assert not [w for w in guest.command_line(Path("/i")) if w.startswith("time-travel")]


def test_unknown_variant_is_refused_with_the_built_ones(tmp_path):
    with pytest.raises(HarnessError, match="allowed fail-avg-3.12"):
        UMLGuest(fake_kernel(tmp_path, ["fail-avg-3.12"]), UMLConfig(variant="other"))


def test_recipe_hash_follows_the_fragment_and_the_patches(tmp_path, monkeypatch):
    (tmp_path / "patches" / "6.1").mkdir(parents=True)
    (tmp_path / "config.fragment").write_text("CONFIG_A=y\n")
    monkeypatch.setattr(uml_kernel, "uml_dir", lambda: tmp_path)
    r = uml_kernel.RECIPES["6.1"]
    first = uml_kernel.recipe_hash(r)
    assert uml_kernel.recipe_hash(r) == first
    (tmp_path / "config.fragment").write_text("CONFIG_A=n\n")
    second = uml_kernel.recipe_hash(r)
    assert second != first
    (tmp_path / "patches" / "6.1" / "0001-x.patch").write_text("--- a\n")
    assert uml_kernel.recipe_hash(r) not in (first, second)
    assert uml_kernel.recipe_hash(uml_kernel.RECIPES["7.3"]) != uml_kernel.recipe_hash(r)


def test_unknown_kernel_series_names_the_allowed_ones(monkeypatch):
    monkeypatch.setenv("HARNESS_UML_KERNEL", "5.10")
    with pytest.raises(HarnessError, match="allowed values are 6.1, 7.3"):
        uml_kernel.recipe()


def test_a_run_asking_for_edited_mac80211_boots_that_kernel():
    def job(policy):
        params = {"topology": {"builder": "chain"}, "flows": [], "policy": policy}
        return Job("e", Run(index=0, run_id="r", repetition=0, seed=1, point={}, params=params))
    assert kernel_variant(job({"mac80211": "fail-avg-3.12"})) == "fail-avg-3.12"
    assert kernel_variant(job({"mac80211": None})) is None
    assert kernel_variant(job({})) is None


def test_cpu_slots_give_each_guest_its_own_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE", str(tmp_path))
    cpus = host_cpus()
    assert len(cpus) >= 1
    slots = [CPUSlot() for _ in cpus]
    got = [s.acquire() for s in slots]
    assert sorted(got) == cpus
    late = CPUSlot()
    threading.Timer(0.3, late.cancelled.set).start()
    with pytest.raises(HarnessError, match="stopped while it waited"):
        late.acquire()  # every CPU is taken: it waits until stopped
    slots[0].release()
    again = CPUSlot()
    assert again.acquire() == got[0]
    for s in slots[1:] + [again]:
        s.release()


def test_mediumd_busy_wait_is_refused_in_virtual_time_before_anything_starts(monkeypatch,
                                                                              tmp_path):
    from harness.medium.daemon import launch
    from harness.medium.spec import MediumSpec
    monkeypatch.setenv("HARNESS_GUEST", "uml")
    monkeypatch.setenv("HARNESS_VM_CLOCK", "virtual")
    spec = MediumSpec(spin_us=50, run_dir=str(tmp_path / "medium"))
    with pytest.raises(HarnessError, match=r"spin_us: 50 .*allowed here only null or 0"):
        launch("/nonexistent/mediumd", "", spec)
    assert not (tmp_path / "medium").exists()   # nothing left behind


class PlainNet:
    """What check_paced reads of a network: its radios and whether a medium runs."""

    def __init__(self, radios, medium):
        self.radios, self.medium = radios, medium

    def without_medium(self):
        return not self.medium


@pytest.mark.parametrize("radios, medium, bitrate, refused", [
    (["r0", "r1"], False, None, True),     # plain hwsim, unpaced: zero time
    (["r0", "r1"], False, "20M", False),   # paced
    (["r0", "r1"], True, None, False),     # through the medium
    ([], False, None, False),              # wired only: shaped links
])
def test_unpaced_flow_over_radios_without_a_medium_is_refused_in_virtual_time(
        monkeypatch, radios, medium, bitrate, refused):
    from harness.traffic.flows import Flow, check_paced
    monkeypatch.setenv("HARNESS_GUEST", "uml")
    monkeypatch.setenv("HARNESS_VM_CLOCK", "virtual")
    flow = Flow("sta1", "sta2", 5, bitrate=bitrate)
    if refused:
        with pytest.raises(HarnessError, match="give the flow a bitrate"):
            check_paced(PlainNet(radios, medium), flow)
    else:
        check_paced(PlainNet(radios, medium), flow)
    monkeypatch.setenv("HARNESS_VM_CLOCK", "realtime")   # on a wall clock: always allowed
    check_paced(PlainNet(radios, medium), flow)


def test_the_guest_sees_the_checkout_and_prefix_at_fixed_paths(tmp_path, monkeypatch):
    """Nothing the guest's programs hold depends on where the checkout lies on the host: its
    code, its other files, Python's prefix and the working folder each have a fixed guest path
    (docs/engine.md, "Determinism")."""
    from harness.vm import uml
    checkout, prefix = tmp_path / "some" / "checkout", tmp_path / "venv"
    (checkout / "harness").mkdir(parents=True)
    (checkout / "results").mkdir()
    (prefix / "bin").mkdir(parents=True)
    monkeypatch.setattr(uml, "code_root", lambda: checkout)
    monkeypatch.setattr(uml.sys, "prefix", str(prefix))
    monkeypatch.setattr(uml, "checkout_entries", lambda: ("harness",))
    assert uml.guest_path(checkout) == uml.GUEST_SRC
    assert uml.guest_path(checkout / "harness" / "x.py") == f"{uml.GUEST_SRC}/harness/x.py"
    assert uml.guest_path(checkout / "results" / "r") == f"{uml.GUEST_CHECKOUT}/results/r"
    assert uml.guest_path(prefix / "bin" / "python") == f"{uml.GUEST_PREFIX}/bin/python"
    assert uml.guest_path("/usr/bin/iperf3") == "/usr/bin/iperf3"
    # a sibling whose name starts like the checkout's is not inside it
    assert uml.guest_path(str(checkout) + "2") == str(checkout) + "2"
    guest = UMLGuest(fake_kernel(tmp_path), UMLConfig(output=tmp_path / "out"))
    assert guest.guest_cwd(str(checkout)) == uml.GUEST_SRC
    assert guest.guest_cwd(str(tmp_path / "out")) == str(tmp_path / "out")
    assert guest.guest_cwd("/etc") == uml.GUEST_CWD
    in_checkout = UMLGuest(fake_kernel(tmp_path), UMLConfig(output=checkout))  # harness cli
    assert in_checkout.guest_cwd(str(checkout)) == str(checkout)  # there: writeable
    # always three mounts, at fixed guest paths (init's programs must not depend on the host)
    for cwd in (str(checkout), "/etc", "/"):
        shown = guest.shown(cwd)
        assert len(shown) == 3 and {g for _, g in shown} == {
            uml.GUEST_CHECKOUT, uml.GUEST_PREFIX, uml.GUEST_CWD}, shown
    assert uml.guest_argv(["cli", str(checkout / "harness" / "s.py"), "rel.py",
                           f"--out={prefix}/x"]) == [
        "cli", f"{uml.GUEST_SRC}/harness/s.py", "rel.py", f"--out={uml.GUEST_PREFIX}/x"]


def test_the_guest_lists_only_the_checkouts_tracked_top_level(tmp_path, monkeypatch):
    from harness.vm import uml
    for name in ("harness", ".venv", "results", "x.egg-info", "docs"):
        (tmp_path / name).mkdir()
    (tmp_path / "README.md").write_text("")
    monkeypatch.setattr(uml, "code_root", lambda: tmp_path)
    uml.checkout_entries.cache_clear()
    try:
        assert uml.checkout_entries() == ("README.md", "docs", "harness")  # no git here
    finally:
        uml.checkout_entries.cache_clear()
