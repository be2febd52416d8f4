"""Reading HTCondor configuration exactly as HTCondor 25.14.1 does.

Pipeline: ``source`` (bytes -> logical lines) -> ``statements`` (classify a
line) -> ``reader`` (if-blocks, includes, templates, local config files,
environment) -> ``model.Config`` (definitions with provenance, lazy
``$(...)`` expansion by ``macros`` and ``functions``; ``conditions`` decides
``if`` lines).  Use :func:`condorcfg.load` (or :func:`reader.load`).

Nothing is imported here so that ``import condorcfg.config.reader`` stays cheap.
"""
