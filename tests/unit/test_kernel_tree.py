"""Stock modules edited and built into a kernel of their own (harness.vm.uml_kernel), the edit
that gives mac80211 Linux 3.12's link-failure average (vm/kmod/mac80211-fail-avg-3.12/edit.py)
and the policy that asks for it. The build and the module itself are exercised in the guest
(tests/emulation/test_mesh.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from harness.errors import HarnessError
from harness.kernel import mac80211
from harness.net.topo import Topology
from harness.paths import project_file
from harness.vm import uml_kernel
from policies.kernel_build import mac80211_build

KMOD = project_file("vm", "kmod", "mac80211-fail-avg-3.12")


def load_edit() -> ModuleType:
    spec = importlib.util.spec_from_file_location("edit_fail_avg", KMOD / "edit.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tree_file_names_a_relative_directory(tmp_path):
    assert uml_kernel.tree_path(KMOD) == "net/mac80211"
    assert KMOD in uml_kernel.variant_dirs()
    for bad in ("/net/mac80211", "net/../../etc", "# only a comment"):
        (tmp_path / "kernel-tree").write_text(bad + "\n")
        with pytest.raises(HarnessError):
            uml_kernel.tree_path(tmp_path)


def _sources(tmp_path: Path, hwmp: str) -> Path:
    (tmp_path / "mesh_hwmp.c").write_text(hwmp)
    (tmp_path / "sta_info.h").write_text("DECLARE_EWMA(mesh_fail_avg, 20, 8)\n")
    return tmp_path


FED_BY_6_1 = ("#include <linux/slab.h>\n\nvoid ieee80211s_update_metric(struct x *local)\n{\n"
              "\tewma_mesh_fail_avg_add(&sta->mesh->fail_avg, failed * 100);\n"
              "\tif (ewma_mesh_fail_avg_read(&sta->mesh->fail_avg) >\n"
              "\t\t\tLINK_FAIL_THRESH)\n\t\tmesh_plink_broken(sta);\n}\n")


def test_the_edit_replaces_the_one_statement_that_feeds_the_average(tmp_path):
    edit = load_edit()
    tree = _sources(tmp_path, FED_BY_6_1)
    edit.edit(tree)
    text = (tree / "mesh_hwmp.c").read_text()
    assert "ewma_mesh_fail_avg_add(&sta->mesh->fail_avg, failed * 100)" not in text
    assert "if (harness_fail_avg_312(sta, st, failed) &&" in text
    assert "(80 * avg + 5) / 100 + (failed ? 20 : 0)" in text
    assert text.index("static bool harness_fail_avg_312") < text.index(
        "void ieee80211s_update_metric(")
    assert 'module_param(harness_variant, charp, 0444)' in text
    assert '"fail-avg-3.12"' in text and edit.VARIANT in mac80211.VARIANTS


def test_the_edit_refuses_code_it_was_not_written_for(tmp_path):
    edit = load_edit()
    with pytest.raises(SystemExit, match="expected once"):
        edit.edit(_sources(tmp_path, FED_BY_6_1.replace("failed * 100", "failed ? 100 : 0")))
    tree = _sources(tmp_path, FED_BY_6_1)
    (tree / "sta_info.h").write_text("DECLARE_EWMA(mesh_fail_avg, 16, 8)\n")
    with pytest.raises(SystemExit, match="not the 6.1 code"):
        edit.edit(tree)


def link_breaks_after_312(outcomes: list) -> int:
    """Linux 3.12's average over a run of frame outcomes (1 = failed), as the edit computes it:
    the index of the first frame that breaks the link, or -1."""
    avg = 0
    for i, failed in enumerate(outcomes):
        avg = (80 * avg + 5) // 100 + (20 if failed else 0)
        if avg > 95:
            return i
    return -1


def test_312s_average_breaks_a_link_after_seventeen_failures_in_a_row():
    """The arithmetic the docs state (docs/kernel.md): one failure after a long clean run is
    far from the threshold; from 0, 17 in a row reach it (integer arithmetic)."""
    assert link_breaks_after_312([0] * 200 + [1]) == -1
    assert link_breaks_after_312([1] * 16) == -1
    assert link_breaks_after_312([1] * 17) == 16
    assert link_breaks_after_312([1, 0] * 100) == -1


def test_an_unknown_build_is_refused_with_the_allowed_values():
    with pytest.raises(HarnessError, match="allowed null .* fail-avg-3.12"):
        mac80211.check_variant("fail-avg-3.13")
    with pytest.raises(HarnessError, match="fail-avg-3.12"):
        mac80211_build("3.12")


def test_the_policy_sets_the_build_on_the_description():
    topo = Topology()
    policy = mac80211_build("fail-avg-3.12")
    policy.prepare(topo)
    assert topo.mac80211 == "fail-avg-3.12" and policy.active
    assert not mac80211_build(None).active


def test_asking_for_a_build_this_kernel_lacks_names_where_it_comes_from():
    if mac80211.loaded() == "fail-avg-3.12":
        pytest.skip("this kernel runs the edited build")
    with pytest.raises(HarnessError, match="fail-avg-3.12"):
        mac80211.ensure("fail-avg-3.12")
