"""Parallel and distributed sweeps: runs executed several at once, each by itself.

``worker`` executes one run of an experiment by itself and prints its record (what every
parallel job runs, in a guest or natively); ``jobs`` runs such jobs one after another on this
host, each in a fresh UML guest (or natively); ``local`` is the pool behind
``harness run --jobs N`` (N job runners in threads); ``cluster`` is the pool behind
``--cluster ADDRESS`` (Dask distributed workers, each with its job runner). The one process
that called ``harness run`` receives every record and alone writes the store.

May import: base, kernel, experiment, vm (it sits beside the VM layer, below the front ends).
"""
