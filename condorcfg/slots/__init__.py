"""Slot ads: what every slot of a machine would advertise, computed offline.

Pipeline: ``shares`` (parse ``SLOT_TYPE_<N>``) → ``resources`` (the machine
pool) → ``layout`` (types, counts, allocation, device ids) → ``ads`` (the
ClassAd of each slot) → ``policy`` (IsOwner/Start with no job) and ``match``
(a job against a slot, clause by clause).  ``output`` prints ads.

Entry point: :func:`build_slot_ads(cfg, machine) <condorcfg.slots.ads.build_slot_ads>`.
"""
from __future__ import annotations


def build_slot_ads(cfg, machine=None, public: bool = False):
    """Every slot ad of ``machine`` under ``cfg`` as a :class:`~condorcfg.slots.ads.SlotAds` list."""
    from condorcfg.slots.ads import build_slot_ads as _build

    return _build(cfg, machine, public=public)


def build_layout(cfg, machine):
    """The slot layout alone (no ClassAds needed): :class:`~condorcfg.slots.layout.Layout`."""
    from condorcfg.slots.layout import build_layout as _build

    return _build(cfg, machine)


__all__ = ["build_slot_ads", "build_layout"]
