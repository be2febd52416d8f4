"""What changes for a configuration when the pool moves from one HTCondor release to another.

The configuration is read twice, as release A and as release B would read it (their templates,
built-in defaults and ``if version`` branches: :func:`condorcfg.load` with ``release=``), and every
knob whose effective value differs is one :class:`Change`, with its cause:

* ``refused``  - B stops reading the configuration (an unknown template, ...);
* ``removed``  - the configuration sets a knob A has and B does not, and nothing in it uses the name: after
  the upgrade it does nothing.  A name the configuration uses (``$(CPUIdle)`` in START, an export list, an
  expression) is a macro in every release, whatever the knob tables say: it is compared like any value
  (a user macro changes only when what it refers to does);
* ``template`` - a template the configuration uses expands differently in B;
* ``branch``   - an ``if version`` condition takes another branch in B;
* ``default``  - a knob the configuration does not set has another built-in default in B;
* ``value``    - a value the configuration writes expands differently (it uses one of the above).

Security knobs (ALLOW/DENY, SEC_*, authentication, tokens) come first.  Knobs new in B that
the configuration does not set are not listed: nothing relied on them.
"""
from __future__ import annotations

import re

from condorcfg.diagnostics import CondorcfgError
from condorcfg.records import factory, record

KINDS = ("refused", "removed", "template", "branch", "default", "value")
_RANDOM = re.compile(r"\$RANDOM_", re.IGNORECASE)  # (differs between any two reads)
# Facts about the build, not the configuration: every release has its own.
_BUILD_FACTS = {"CONDOR_VERSION", "CONDOR_BUILD_PLATFORM", "PYTHON3_VERSION_MINOR", "PYTHON3_MODULE_SUFFIX",
                "PYTHON3_VERSION_MAJOR", "PYTHON_VERSION_MINOR", "PYTHON_MODULE_SUFFIX", "PYTHON_VERSION_MAJOR"}
DOCS = "https://htcondor.readthedocs.io/en/latest/"


@record
class Change:
    knob: str
    kind: str
    old: str | None = None        # effective value under A (None: undefined)
    new: str | None = None        # under B
    security: bool = False
    where: object = None          # Location of the line the user would look at (a `use` line for a template)
    template: str | None = None   # CATEGORY:Name for kind template
    old_default: str | None = None  # raw built-in defaults, for kind default
    new_default: str | None = None
    docs: str | None = None       # the manual's page for the knob
    message: str = ""


@record
class UpgradePlan:
    old: str
    new: str
    files: list = factory(list)
    changes: list = factory(list)

    @property
    def security_count(self) -> int:
        return sum(change.security for change in self.changes)


def _read(paths, release: str, options: dict):
    import condorcfg
    from condorcfg import releases

    return condorcfg.load(paths, release=None if release == releases.base() else release, **options)


def plan(paths, old: str, new: str, **options) -> UpgradePlan:
    """The changes for the configuration at ``paths`` from release ``old`` to ``new`` (releases names).

    ``options`` go to :func:`condorcfg.load` (machine, mode, sysroot, ...).  Raises CondorcfgError when
    release ``old`` itself refuses the configuration: there is nothing running to upgrade from.
    """
    from condorcfg import releases
    from condorcfg.lint import knowledge as knowledge_module

    before = _read(paths, old, options)
    result = UpgradePlan(old=old, new=new, files=list(getattr(before, "files", [])))
    try:
        after = _read(paths, new, options)
    except CondorcfgError as exc:
        after = None
        result.changes.append(Change(knob="", kind="refused", security=False, where=exc.diagnostic.location,
                                     message=f"HTCondor {new} refuses this configuration: {exc.diagnostic.message}"))
    old_knobs, new_knobs = releases.knobs(old), releases.knobs(new)
    pages = knowledge_module.load()
    user = {name.upper(): name for name in before.names()
            if getattr(before.source(name), "origin", None) in ("file", "env")}
    used = _used_names(after if after is not None else before)

    def docs(name: str) -> str | None:
        page = pages.manual_page(name.split(".")[-1])
        return f"{DOCS}{page[:-4]}.html#{name.split('.')[-1]}" if page and page.endswith(".rst") else None

    def removed(upper: str) -> bool:  # set here, a knob of A, not of B, and no macro anything uses
        base = upper.split(".")[-1]
        return upper in user and base in old_knobs and base not in new_knobs and not (upper in used or base in used)

    for upper, name in user.items():
        base = upper.split(".")[-1]
        if removed(upper):
            definition = before.source(name)
            obsolete = pages.obsolete(base)  # (what the version history says replaces it)
            instead = f"; use {obsolete['replacement']} instead" if obsolete and obsolete.get("replacement") else ""
            result.changes.append(Change(knob=name, kind="removed", old=_value(before, name), new=None,
                                         security=pages.is_security(base), where=definition.location,
                                         docs=docs(name),
                                         message=f"HTCondor {new} has no {base} knob: the setting does nothing"
                                                 f"{instead}"))
    if after is not None:
        names = dict(user)
        for upper in set(old_knobs) & set(new_knobs):
            names.setdefault(upper, new_knobs[upper]["name"])
        for name in after.names():
            names.setdefault(name.upper(), name)
        for upper, name in sorted(names.items()):
            base = upper.split(".")[-1]
            if removed(upper):
                continue  # (listed as removed)
            change = _compare(before, after, name, old_knobs, new_knobs)
            if change is not None:
                change.security = pages.is_security(base)
                change.docs = docs(name)
                result.changes.append(change)
    order = {kind: i for i, kind in enumerate(KINDS)}
    result.changes.sort(key=lambda c: (c.kind != "refused", not c.security, order[c.kind], c.knob.upper()))
    return result


def _used_names(config) -> set[str]:
    """The names the configuration uses, as the lint rules decide it (condorcfg.lint.checks._util.used_names)."""
    from condorcfg.lint.checks._util import used_names
    from condorcfg.lint.engine import LintContext

    return used_names(LintContext(config))


def _value(config, name: str) -> str | None:
    try:
        return config.value(name)
    except CondorcfgError:
        return None


def _is_path(value: str | None) -> bool:
    return bool(value) and all(part.strip().startswith("/") for part in value.split(","))


def _compare(before, after, name: str, old_knobs: dict, new_knobs: dict) -> Change | None:
    old_source, new_source = before.source(name), after.source(name)
    raw = " ".join(getattr(s, "raw", None) or "" for s in (old_source, new_source))
    if _RANDOM.search(raw):
        return None
    old_value, new_value = _value(before, name), _value(after, name)
    if old_value == new_value:
        return None
    if old_value is None and new_source is not None and getattr(new_source, "origin", None) == "default" \
            and name.upper() not in old_knobs:
        return None  # a knob new in B that nothing here sets
    base = name.upper().split(".")[-1]
    # (a knob a release has without a default reads as undefined there: its default is "none")
    origin_old = getattr(old_source, "origin", None) or ("default" if base in old_knobs else None)
    origin_new = getattr(new_source, "origin", None) or ("default" if base in new_knobs else None)
    change = Change(knob=name, kind="value", old=old_value, new=new_value)
    if "template" in (origin_old, origin_new):
        template_source = new_source if origin_new == "template" else old_source
        change.kind, change.template = "template", template_source.template
        change.where = template_source.use_location
        change.message = f"`use {template_source.template}` sets it differently in the new release"
    elif origin_old == origin_new == "default":
        change.kind = "default"
        change.old_default = (old_knobs.get(base) or {}).get("default")
        change.new_default = (new_knobs.get(base) or {}).get("default")
        if change.old_default == change.new_default or base in _BUILD_FACTS:
            return None  # (it changes because another default does: that one is listed)
        if _is_path(old_value) and _is_path(new_value):
            return None  # a default install path: the layout of the build, set by the packages' own config
        change.message = "not set here: the built-in default changed"
    elif "file" in (origin_old, origin_new) and getattr(old_source, "location", None) != \
            getattr(new_source, "location", None):
        change.kind = "branch"
        change.where = getattr(new_source, "location", None) or getattr(old_source, "location", None)
        change.message = "another `if version` branch sets it in the new release"
    else:
        change.where = getattr(new_source or old_source, "location", None)
        change.message = "the value written here expands differently (it uses a changed default or template)"
    return change
