"""Lint: rules in ``rules/*.yaml`` (declarative matchers or Python checks) run over a composed config.

``condorcfg.lint.lint(paths_or_config, ...)`` returns the findings; see :mod:`condorcfg.lint.engine`.
"""
from __future__ import annotations


def lint(target, **options):
    from condorcfg.lint.engine import lint as _lint

    return _lint(target, **options)
