"""Reading HTCondor configuration exactly as HTCondor 25.14.1 does.

Pipeline: ``source`` (bytes -> logical lines) -> ``statements`` (classify a
line) -> ``reader`` (if-blocks via ``conditions``, includes, ``use`` templates
with ``template_args``, local config files) with ``host`` (host facts,
``CONDOR_CONFIG`` discovery, ``_CONDOR_*`` overrides) -> ``model.Config``
(definitions with provenance, lazy ``$(...)`` expansion by ``macros`` and
``functions``).  Use :func:`condorcfg.load` (or :func:`reader.load`).

Nothing is imported here so that ``import condorcfg.config.reader`` stays cheap.
"""
