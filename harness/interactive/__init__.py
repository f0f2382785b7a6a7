"""The interactive prompt (``harness cli``): a running network a student can poke at.

``sources`` turns what the user names (an experiment file, a builder with options, a Python
script) into a ``Setup``; ``session`` starts the network and does what each command asks
(node commands, ping, iperf, move, medium counters, RTS, window clamp, capture, plot) and
always tears down; ``prompt`` is the command line itself (``cmd`` + readline: history, tab
completion, one clear message for a bad command).

May import: ``harness.errors``, ``harness.paths``, ``harness.kernel``, ``harness.medium``,
``harness.net``, ``harness.traffic``, ``topologies``, ``policies``, ``harness.experiment``
(to read experiment files and run their flows the way a run does), ``harness.analysis``
(the topology figure). Not the VM or the parallel layer: the front end (``harness.cli``)
decides where the prompt runs.
"""
