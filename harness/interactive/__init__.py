"""The interactive prompt (``harness cli``): a running network a student can poke at.

``sources`` turns what the user names (an experiment file, a builder with options, a Python
script) into a ``Setup``; ``session`` starts the network, does what each command asks and
always tears down; ``prompt`` is the command line itself (``cmd`` + readline).

May import: ``harness.errors``, ``harness.paths``, ``harness.kernel``, ``harness.medium``,
``harness.net``, ``harness.traffic``, ``topologies``, ``policies``, ``harness.experiment``
(to read experiment files and run their flows the way a run does), ``harness.analysis``
(the topology figure). Not the VM or the parallel layer: the front end (``harness.cli``)
decides where the prompt runs.
"""
