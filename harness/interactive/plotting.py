"""The prompt's picture: drawn here when matplotlib is installed, otherwise by the host.

The guest has no matplotlib (plots are made on the host, docs/vm.md). When the host started
the prompt in a guest it names a shared directory in ``HARNESS_PLOT_BRIDGE``: the guest
writes the scene there as a request (``req-<n>.json``, written whole with a rename), the host
draws it and answers (``req-<n>.done``: the files written, or the error), and the guest waits
for the answer. ``serve`` is the host's side, run by ``harness cli`` while the guest runs.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from harness.errors import HarnessError

BRIDGE_ENV = "HARNESS_PLOT_BRIDGE"
#: Seconds the guest waits for the host to draw (a first matplotlib import is slow).
ANSWER_TIMEOUT_S = 300.0


def can_draw_here() -> bool:
    import importlib.util
    return importlib.util.find_spec("matplotlib") is not None


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def draw(scene: Mapping[str, Any], target: Path, *, ranges_of: Sequence[str] = (),
         title: Optional[str] = None) -> List[Path]:
    """PNG and SVG of the scene at ``target`` (its stem); returns the files (as the host names
    them when the host drew them)."""
    if can_draw_here():
        from harness.analysis.topology_figure import draw_scene
        return draw_scene(scene, target, ranges_of=ranges_of or None, title=title)
    bridge = os.environ.get(BRIDGE_ENV)
    if not bridge:
        raise HarnessError("the picture needs matplotlib, which is not installed here",
                           hint="pip install matplotlib, or start the prompt with harness cli, "
                                "which draws on the host when the prompt runs in the VM")
    directory = Path(bridge)
    n = 1 + len(list(directory.glob("req-*.json"))) + len(list(directory.glob("req-*.done")))
    request = directory / f"req-{n}-{os.getpid()}.json"
    answer = request.with_suffix(".done")
    _write_json(request, {"scene": dict(scene), "target": str(target),
                          "ranges_of": list(ranges_of), "title": title})
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    while not answer.exists():
        if time.monotonic() > deadline:
            raise HarnessError(f"the host did not draw the picture within {ANSWER_TIMEOUT_S:g} s")
        time.sleep(0.2)
    reply = json.loads(answer.read_text())
    if reply.get("error"):
        raise HarnessError(f"drawing on the host: {reply['error']}")
    return [Path(p) for p in reply["written"]]


def serve(directory: Path, to_host: Callable[[str], Optional[str]],
          stop: threading.Event, interval: float = 0.3) -> None:
    """Answer the guest's requests until ``stop`` is set. ``to_host`` maps a guest path to the
    host's (None: the guest named a place no share holds)."""
    from harness.analysis.topology_figure import draw_scene
    done: set = set()
    while not stop.wait(interval):
        for request in sorted(directory.glob("req-*.json")):
            if request.name in done:
                continue
            done.add(request.name)
            reply: Dict[str, Any]
            try:
                data = json.loads(request.read_text())
                target = to_host(data["target"])
                if target is None:
                    raise HarnessError(f"{data['target']} is not in a directory the host shares "
                                       "with the guest; name a file under the current directory")
                written = draw_scene(data["scene"], Path(target),
                                     ranges_of=data.get("ranges_of") or None,
                                     title=data.get("title"))
                reply = {"written": [str(p) for p in written]}
            except Exception as err:  # noqa: BLE001 - the guest shows it; the host goes on
                reply = {"error": str(err)}
            _write_json(request.with_suffix(".done"), reply)
