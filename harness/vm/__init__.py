"""The engine that runs the emulation: which one (engine: ``uml`` or ``native``), the UML
kernel and its guests (uml_kernel, uml), and the dispatch of commands and runs to them
(dispatch). docs/engine.md.

May import: ``harness.errors``, ``harness.paths``, ``harness.kernel`` (what the host can do),
``harness.medium`` (mediumd is built on the host before a guest boots), ``harness.experiment``
(a sweep sent to a guest). Only the front ends and ``harness.parallel`` import it.
"""
