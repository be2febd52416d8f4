"""The ClassAd language: parse, evaluate and print expressions and ads (HTCondor 25.x semantics).

Public API (docs/design.md): :func:`parse`, :func:`parse_ad`, :func:`parse_ads`,
:func:`evaluate`, :func:`unparse`, :func:`unparse_ad`, ``UNDEFINED``, ``ERROR``,
:class:`ClassAd`, :class:`ClassAdSyntaxError`; static analysis lives in
:mod:`condorcfg.classad.analysis`.

Submodules are imported on first use, so ``import condorcfg.classad`` costs
next to nothing.
"""
from __future__ import annotations

import sys

_EXPORTS = {
    "parse": "condorcfg.classad.parser",
    "parse_ad": "condorcfg.classad.parser",
    "parse_ads": "condorcfg.classad.parser",
    "ClassAdSyntaxError": "condorcfg.classad.parser",
    "evaluate": "condorcfg.classad.evaluator",
    "unparse": "condorcfg.classad.printer",
    "unparse_ad": "condorcfg.classad.printer",
    "UNDEFINED": "condorcfg.classad.values",
    "ERROR": "condorcfg.classad.values",
    "ClassAd": "condorcfg.classad.values",
    "AbsTime": "condorcfg.classad.values",
    "RelTime": "condorcfg.classad.values",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'condorcfg.classad' has no attribute {name!r}")
    __import__(module)  # (not importlib.import_module: importing importlib brings warnings)
    value = getattr(sys.modules[module], name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
