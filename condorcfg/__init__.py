"""condorcfg: read, expand, evaluate and lint HTCondor configuration offline.

The public entry point is :func:`load`; the ClassAd language is in
:mod:`condorcfg.classad`.  Imports are lazy to keep command start-up fast.
"""
from __future__ import annotations

__version__ = "0.2.0"


def load(paths, machine=None, subsystem=None, local_name=None, allow_exec=False, **options):
    """Read a configuration the way HTCondor does and return a :class:`condorcfg.config.model.Config`.

    ``paths`` is a file (top-level ``condor_config`` or a single file), a
    ``config.d`` directory, or a list of those read in order.
    """
    from condorcfg.config.reader import load as _load

    return _load(paths, machine=machine, subsystem=subsystem, local_name=local_name,
                 allow_exec=allow_exec, **options)
