"""The layer map of docs/architecture.md, enforced: each package imports only the layers below
it (its own rule in its ``__init__`` docstring). A new import that crosses a layer upwards fails
here, with the file and the import named.

    front ends      harness.cli, harness.testing
    parallel runs   harness.parallel
    the guest       harness.vm
    compatibility   harness.compat (Mininet-WiFi's API)
    the prompt      harness.interactive
    studies API     harness.study (studies/ are above everything and import the harness)
    analysis        harness.analysis
    experiments     harness.experiment
    builders        topologies, policies
    traffic         harness.traffic
    network API     harness.net
    the medium      harness.medium
    kernel          harness.kernel
    base            harness.errors, harness.paths, harness.params (declaration types)
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

ROOT = Path(__file__).resolve().parents[2]

BASE = {"harness.errors", "harness.paths", "harness.params", "harness"}
#: layer -> the layers it may import (besides itself and the base).
ALLOWED: Dict[str, Set[str]] = {
    "harness.kernel": set(),
    "harness.medium": {"harness.kernel"},
    "harness.net": {"harness.kernel", "harness.medium"},
    "harness.traffic": {"harness.kernel", "harness.net"},
    "topologies": {"harness.kernel", "harness.net", "harness.medium"},
    "policies": {"harness.kernel", "harness.net", "harness.traffic"},
    "harness.experiment": {"harness.kernel", "harness.medium", "harness.net", "harness.traffic",
                           "topologies", "policies"},
    "harness.analysis": {"harness.experiment"},
    "harness.study": {"harness.experiment", "harness.analysis"},
    "harness.interactive": {"harness.kernel", "harness.medium", "harness.net", "harness.traffic",
                            "topologies", "policies", "harness.experiment", "harness.analysis"},
    "harness.compat": {"harness.kernel", "harness.medium", "harness.net", "harness.traffic",
                       "harness.interactive"},
    # the engine builds mediumd on the host before a UML guest boots (harness.medium.build)
    "harness.vm": {"harness.kernel", "harness.medium", "harness.experiment"},
    "harness.parallel": {"harness.kernel", "harness.experiment", "harness.vm"},
}
FRONT_ENDS = {"harness.cli", "harness.testing", "harness.__main__"}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "harness" and len(parts) > 1 else parts[0]


def imports() -> Iterator[Tuple[str, str, str]]:
    """(file, its layer, imported layer) for every project import in the packages."""
    for top in ("harness", "topologies", "policies"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            module = rel[:-3].replace("/", ".").removesuffix(".__init__")
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    if name.split(".")[0] in ("harness", "topologies", "policies", "studies"):
                        yield rel, layer_of(module), layer_of(name)


def test_every_import_goes_down_the_layer_map() -> None:
    wrong = []
    for rel, src, dst in imports():
        if src in FRONT_ENDS or dst == src or dst in BASE:
            continue
        if src in BASE:
            wrong.append(f"{rel}: the base imports {dst}")
        elif src not in ALLOWED:
            wrong.append(f"{rel}: package {src} is not on the layer map (add it here and to "
                         "docs/architecture.md)")
        elif dst not in ALLOWED[src]:
            wrong.append(f"{rel}: {src} imports {dst}; allowed: "
                         + ", ".join(sorted(ALLOWED[src] | {"the base"})))
    assert not wrong, "\n".join(wrong)


def test_every_layer_states_its_rule() -> None:
    """Each package's docstring says what it holds and what it may import."""
    for package in [*ALLOWED, *FRONT_ENDS - {"harness.__main__"}]:
        init = ROOT.joinpath(*package.split("."), "__init__.py")
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "may import" in doc.lower(), f"{init.relative_to(ROOT)}: no 'May import' rule"


def test_nothing_in_the_tool_imports_a_study() -> None:
    """The harness finds studies by looking in studies/ (harness.study); it never names one."""
    wrong = [f"{rel} imports {dst}" for rel, _src, dst in imports() if dst == "studies"]
    assert not wrong, "\n".join(wrong)


def test_studies_import_only_the_tool_and_themselves() -> None:
    """A study is self-contained: it imports the harness and its own package, not another study."""
    studies = sorted(p.parent for p in (ROOT / "studies").glob("*/__init__.py"))
    assert len(studies) >= 5
    wrong = []
    for study in studies:
        own = f"studies.{study.name}"
        for path in sorted(study.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.module
                         and node.level == 0 else [])
                wrong += [f"{path.relative_to(ROOT)} imports {n}" for n in names
                          if n.startswith("studies.") and not (n == own or n.startswith(own + "."))]
    assert not wrong, "\n".join(wrong)


def _layer_names(doc: str) -> List[str]:
    """The packages a layer list names, top down, each once."""
    found = re.findall(r"\b(harness\.\w+|topologies|policies)\b", doc)
    return [name for i, name in enumerate(found) if name not in found[:i]]


def test_the_package_docstring_lists_every_layer_in_this_order():
    """harness/__init__.py's layer list names every subpackage of harness (and the builders),
    top down in the order of the map above: a package added without a place there fails."""
    doc = ast.get_docstring(ast.parse((ROOT / "harness" / "__init__.py").read_text())) or ""
    listed = _layer_names(doc)
    packages = sorted(f"harness.{init.parent.name}"
                      for init in (ROOT / "harness").glob("*/__init__.py"))
    missing = [p for p in [*packages, "topologies", "policies"]
               if p not in listed]
    assert not missing, f"harness/__init__.py does not name {', '.join(missing)}"
    on_map = _layer_names(__doc__ or "")
    assert listed == on_map, "harness/__init__.py lists the layers in another order than this map"
