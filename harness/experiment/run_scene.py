"""The picture's data of an experiment's run: from its parameters, or from its stored record.

``scene_of_params(params)`` builds the topology the run's builder describes (with the
policies' changes) and lays the flows' static routes over it; ``scene_of_record(record)``
adds what the run measured: each link's delivery ratio from the medium's final counters.
``harness draw``, the prompt and reports draw these with ``harness.analysis.topology_figure``;
``motion_scenes`` gives a run's moving nodes frame by frame (``harness.analysis.motion``).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.experiment.execute import build_topology, make_policies, medium_choice
from harness.experiment.realise import flow_instances
from harness.experiment.registry import default_registry
from harness.medium.mobility import record as mobility_record
from harness.medium.mobility.trajectory import Trajectory
from harness.net import scene as scenes


def scene_of_params(params: Mapping[str, Any], name: Optional[str] = None) -> scenes.Scene:
    """Nodes, ranges and links of a run's topology, and the static paths of its flows."""
    registry = default_registry()
    params = dict(params)
    topo = build_topology(params, registry)
    for policy in make_policies(params, registry):
        policy.prepare(topo)
    medium, _record = medium_choice(params)
    scene = scenes.scene_of(topo, medium)
    if name:
        scene.name = name
    paths = []
    for flow in flow_instances(params, topo.node_names()):
        src, dst = flow["src"], flow["dst"]
        if flow.get("direction") == "reverse":
            src, dst = dst, src
        paths.append(scenes.static_path(topo, src, dst))
    return scenes.with_routes(scene, [p for p in paths if p])


def scene_of_record(record: Mapping[str, Any]) -> scenes.Scene:
    """A stored run's scene with the delivery ratio of each link it used (its medium's final
    counters)."""
    point = record.get("point") or {}
    label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in point.items())
    scene = scene_of_params(record["params"],
                            name=f"{record.get('experiment', 'run')} {record.get('run_id', '')}"
                                 + (f" ({label})" if label else ""))
    counters: Optional[Dict[str, Any]] = ((record.get("medium") or {}).get("counters"))
    return scenes.with_counters(scene, counters) if counters else scene


def trajectories_of_record(record: Mapping[str, Any]) -> Dict[str, Trajectory]:
    """The trajectories a stored run's nodes followed (its record's ``medium.mobility``)."""
    kept = (record.get("medium") or {}).get("mobility")
    if not kept:
        raise HarnessError(f"run {record.get('run_id', '?')}: no node moved in it (its record "
                           "keeps no medium.mobility)")
    return mobility_record.trajectories_of(kept)


def motion_scenes(scene: scenes.Scene, trajectories: Mapping[str, Trajectory],
                  times: Sequence[float]) -> List[Tuple[float, Dict[str, Any]]]:
    """(t, the scene at t as plain data) per time: moving nodes where their trajectories put
    them, pairs in range redrawn; the whole run's delivery ratios and routes left out."""
    still = replace(scenes.with_counters(scene, None), routes=[])
    return [(t, scenes.with_positions(still, {n: traj.position_at(t)[:2] for n, traj in
                                              trajectories.items()}).to_dict()) for t in times]
