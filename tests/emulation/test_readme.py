"""The README's Python API example runs as printed (docs that work word for word)."""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_one_python_example():
    assert len(readme_python_blocks()) == 1


@pytest.mark.emulation
def test_readme_python_example_runs(capsys):
    exec(compile(readme_python_blocks()[0], "README.md", "exec"), {})
    printed = capsys.readouterr().out.split()
    rtt_ms, throughput = float(printed[0]), float(printed[1])
    print(f"README example: rtt {rtt_ms} ms, throughput {throughput} Mbit/s")
    assert rtt_ms > 0
    assert 1.0 < throughput < 11.0, "an 11 Mbit/s 802.11b hop carries a few Mbit/s of TCP"
