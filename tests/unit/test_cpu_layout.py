"""CPU placement of mediumd and the stack: the masks written to rps_cpus (pure logic)."""
import pytest

from harness.kernel import cpu_layout


@pytest.fixture
def cpus(monkeypatch):
    def use(cpu_set, env=None):
        monkeypatch.setattr(cpu_layout, "_usable_cpus", lambda: set(cpu_set))
        if env is None:
            monkeypatch.delenv("HARNESS_CPU_LAYOUT", raising=False)
        else:
            monkeypatch.setenv("HARNESS_CPU_LAYOUT", env)
    return use


def test_two_cpus_medium_on_first_stack_on_second(cpus):
    cpus({0, 1})
    assert cpu_layout.medium_cpu() == 0
    assert cpu_layout.stack_mask() == "00000002"


def test_restricted_affinity_uses_lowest_usable_cpu(cpus):
    cpus({2, 3, 5})
    assert cpu_layout.medium_cpu() == 2
    assert cpu_layout.stack_mask() == "00000028"


def test_more_than_32_cpus_groups_by_comma(cpus):
    cpus(range(40))
    assert cpu_layout.stack_mask() == "000000ff,fffffffe"


def test_one_cpu_or_disabled_does_nothing(cpus):
    cpus({0})
    assert cpu_layout.medium_cpu() is None and cpu_layout.rps_lines("wlan0") == []
    cpus({0, 1}, env="off")
    assert cpu_layout.stack_mask() is None and cpu_layout.rps_lines("wlan0") == []


def test_rps_line_is_guarded_for_kernels_without_rps(cpus):
    cpus({0, 1})
    (line,) = cpu_layout.rps_lines("wlan0")
    assert line == ("if [ -w /sys/class/net/wlan0/queues/rx-0/rps_cpus ]; then "
                    "echo 00000002 > /sys/class/net/wlan0/queues/rx-0/rps_cpus; fi")
