"""Nodes that move (issue 62): mobility models as reproducible trajectories in virtual time.

A trajectory is a node's time-ordered waypoints (t s, x, y, z m) with straight-line motion
at constant speed between consecutive ones; it is the one form the medium will read to place
a node at a frame's time, so every model, and every trace, ends as one.

``trajectory`` holds ``Area``, ``Waypoint`` and ``Trajectory`` and the per-node random
streams; ``declare`` the parameter rules and the ``Model`` type; ``waypoint`` the random
waypoint model, ``walks`` the random walk, Gauss-Markov and constant velocity (motion that
reflects at the area's borders), ``traces`` ns-2 ``setdest`` files and the CSV form that
trajectories are exported to and replayed from; ``models`` the table of model names an
experiment's ``medium.mobility`` key may name, and ``generate``; ``setting`` that key checked
and a run's trajectories made from it; ``record`` what a run record keeps of them and their
replay. Pure: standard library only (trace files are read where a model names one).

May import: ``harness.errors``, ``harness.params`` (it is part of the medium layer).
"""
