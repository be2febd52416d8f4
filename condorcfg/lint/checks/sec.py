"""Security checks (SEC): wide-open ALLOW lists, weak authentication, insecure methods.

``ALLOW_WRITE = *`` means "anyone" only when authentication is not required: with
``SEC_<LEVEL>_AUTHENTICATION`` (or ``SEC_DEFAULT_AUTHENTICATION``) REQUIRED it means "any
authenticated user", which is exactly what HTCondor's ``use SECURITY : recommended``
templates set.  ADMINISTRATOR, DAEMON, NEGOTIATOR, CONFIG and ADVERTISE_* are never
meant for every authenticated user.

The permission levels, which level implies which, what a level without an ALLOW list does and
where a daemon looks its lists up are :mod:`condorcfg.lint.authorization`'s facts.
"""
from __future__ import annotations

import re

from condorcfg.diagnostics import Text
from condorcfg.lint import authorization
from condorcfg.lint.checks import check
from condorcfg.lint.checks._util import describe, effective, is_user, raw_span, template_origin, value

_WILDCARDS = {"*", "*/*", "*@*", "*@*/*", "*/*@*"}
# Levels where `*` is acceptable once authentication is required (any authenticated user).  (OWNER, once
# here too, is no permission level from HTCondor 10.0 on: ALLOW_OWNER is read by no daemon.)
_AUTHENTICATED_OK = {"WRITE"}


def _level_alternation(names) -> str:
    return "|".join(sorted(names, key=len, reverse=True))


def _tokens(text: str | None) -> list[str]:
    return [t for t in re.split(r"[\s,]+", text or "") if t]


def _auth_definition(ctx, level: str):
    """The definition deciding whether ``level`` requires authentication (level knob, else DEFAULT)."""
    for name in (f"SEC_{level}_AUTHENTICATION", "SEC_DEFAULT_AUTHENTICATION"):
        definition = ctx.config.source(name)
        if definition is not None and (value(ctx, name) or "").strip():
            return name, definition
    return None, None


def _required(ctx, name) -> bool:
    return name is not None and (value(ctx, name) or "").strip().upper() == "REQUIRED"


# Methods whose identities the pool grants: the shared pool password, tokens signed with the pool's
# key, and FS (an account on the daemon's own host: nobody reaching the port over the network).
_POOL_GRANTED_METHODS = {"PASSWORD", "IDTOKEN", "IDTOKENS", "TOKEN", "TOKENS", "FS"}
# Methods that accept outside identities (any certificate a CA signed, any principal of a realm, any
# token issuer): pool-granted only when the level denies the identities the map file does not map.
_MAPPED_METHODS = {"SSL", "KERBEROS", "SCITOKENS", "SCITOKEN", "MUNGE", "NTSSPI"}


def _methods(ctx, level: str) -> set[str]:
    """The authentication methods of ``level`` (its own knob, SEC_DEFAULT_..., HTCondor's default)."""
    for name in (f"SEC_{level}_AUTHENTICATION_METHODS", "SEC_DEFAULT_AUTHENTICATION_METHODS"):
        text = value(ctx, name)
        if text and text.strip():
            return {t.upper() for t in _tokens(text)}
    return set()


def _denied(ctx, level: str) -> set[str]:
    """The identities DENY_<level> lists (lower case)."""
    return {t.lower() for t in _tokens(value(ctx, f"DENY_{level}"))}


def _authentication_required(ctx, level: str, auth_name) -> bool:
    """SEC_<level>_AUTHENTICATION (or DEFAULT) is REQUIRED, or DENY_<level> refuses unauthenticated clients."""
    denied = _denied(ctx, level)
    return _required(ctx, auth_name) or "unauthenticated@*" in denied


def _pool_granted_only(ctx, level: str, auth_name) -> bool:
    """Authentication is required and every method accepted at ``level`` yields an identity the pool granted
    (pool password, pool tokens, local FS accounts; SSL, Kerberos, SciTokens only when DENY_<level> refuses
    their unmapped identities, `ssl@unmapped`): `*` then means "whoever the pool let in", not "anyone"."""
    if not _authentication_required(ctx, level, auth_name):
        return False
    methods = _methods(ctx, level) or {"FS", "IDTOKENS", "KERBEROS", "SCITOKENS", "SSL"}  # (HTCondor's default)
    denied = _denied(ctx, level)
    # Administering the pool is not for every local account or every token holder (users can fetch a
    # token in their own name): there only the pool password means "the pool's own daemons".
    granted = {"PASSWORD"} if level in ("ADMINISTRATOR", "CONFIG") else _POOL_GRANTED_METHODS
    for method in methods:
        if method in granted:
            continue
        if method in _MAPPED_METHODS and ({"*@unmapped", f"{method.lower()}@unmapped"} & denied):
            continue
        return False
    return True


@check
def insecure_allow(ctx):
    for name in ctx.names():
        found = authorization.parse_knob(name, ctx.primary_release)
        if found is None or found.kind != "ALLOW" or found.level not in authorization.ABOVE_READ:
            continue
        definition = effective(ctx, name)
        if definition is None:
            continue
        level = found.level
        wild = next((t for t in _tokens(value(ctx, name)) if t in _WILDCARDS), None)
        if wild is None:
            continue
        auth_name, auth_def = _auth_definition(ctx, level)
        if level in _AUTHENTICATED_OK and _authentication_required(ctx, level, auth_name):
            continue  # `*` = any authenticated user: the recommended setup
        if _pool_granted_only(ctx, level, auth_name):
            continue  # only identities the pool granted can authenticate at this level
        if is_user(definition):
            token = re.search(r"(?<![^\s,])" + re.escape(wild) + r"(?![^\s,])", definition.raw or "")
            span = raw_span(ctx, definition, token.start(), token.end()) if token else ctx.value_span(definition)
            if level in _AUTHENTICATED_OK:
                why = (f"and authentication is not required ({auth_name} is {value(ctx, auth_name)})"
                       if auth_name else "and nothing requires authentication (SEC_DEFAULT_AUTHENTICATION is unset)")
                message = f"{name} = {wild} lets anyone who can reach the daemons in at {level} level, {why}"
            else:
                methods = ", ".join(sorted(_methods(ctx, level))) or "the default methods"
                message = (f"{name} = {wild} grants {level} access to everyone"
                           + ("" if not _required(ctx, auth_name) else
                              f" who can authenticate with {methods}, not only the pool's daemons")
                           + f"; {level} must be limited to the pool's daemons or admins")
            yield ctx.finding(message, at=definition, span=span)
        elif level in _AUTHENTICATED_OK and auth_def is not None and is_user(auth_def):
            # the template relies on authentication being required; the user's line switched it off
            use_text, use_location = template_origin(ctx, definition)
            yield ctx.finding("`{use}` at {where} sets {knob} = {wild}, meaning any authenticated user, but "
                              "{auth} = {auth_value} here lets unauthenticated clients in too",
                              use=use_text, where=use_location, knob=name, wild=wild, auth=auth_name,
                              auth_value=value(ctx, auth_name), at=auth_def, span=ctx.value_span(auth_def))


_REQUIREMENT_KNOB = re.compile(r"SEC_(" + _level_alternation(authorization.SECURITY_SETTING_LEVELS) + r")_"
                               r"(AUTHENTICATION|INTEGRITY|ENCRYPTION|NEGOTIATION)", re.IGNORECASE)
# SecMan::sec_alpha_to_sec_req (condor_secman.cpp) reads the first character only: R, Y, T are REQUIRED, P
# PREFERRED, O OPTIONAL, F, N NEVER; any other makes sec_req_param EXCEPT("SECMAN: X=... is invalid!")
_REQUIREMENT_LETTERS = {"R": "REQUIRED", "Y": "REQUIRED", "T": "REQUIRED", "P": "PREFERRED", "O": "OPTIONAL",
                        "F": "NEVER", "N": "NEVER"}


def _requirement_settings(ctx):
    """(knob, definition, written value, level, what) of each security requirement the user sets."""
    for name in ctx.names():
        found = _REQUIREMENT_KNOB.fullmatch(name.split(".")[-1])
        if not found:
            continue
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        setting = (value(ctx, name) or "").strip()
        if setting:  # (empty: the default applies)
            yield name, definition, setting, found.group(1).upper(), found.group(2).upper()


_WEAK_LEVELS = frozenset(("DEFAULT",) + authorization.ABOVE_READ)  # (READ and CLIENT may be weak on purpose)


@check
def weak_security(ctx):
    for name, definition, written, level, what in _requirement_settings(ctx):
        setting = written.upper()
        if level not in _WEAK_LEVELS:
            continue
        if what == "AUTHENTICATION" and setting in ("NEVER", "OPTIONAL"):
            consequence = ("commands at this level are accepted without knowing who sent them"
                           if setting == "NEVER" else "clients that do not authenticate are still accepted")
            yield ctx.finding(f"{name} = {setting}: {consequence}; ALLOW lists then rest on host names and IP "
                              f"addresses only", at=definition, span=ctx.value_span(definition))
        elif what in ("INTEGRITY", "ENCRYPTION") and setting == "NEVER":
            harm = "altered" if what == "INTEGRITY" else "read"
            yield ctx.finding(f"{name} = NEVER: traffic at {level} level can be {harm} on the network",
                              at=definition, span=ctx.value_span(definition))


@check
def invalid_security_requirement(ctx):
    for name, definition, setting, _level, _what in _requirement_settings(ctx):
        if setting[0].upper() not in _REQUIREMENT_LETTERS:
            yield ctx.finding(f"{name} = {setting} is no security requirement: HTCondor reads the first letter only "
                              f"(REQUIRED, PREFERRED, OPTIONAL or NEVER), and `{setting[0]}` is none of them, so every "
                              f"daemon reading it stops with \"SECMAN: {name}=... is invalid!\"",
                              at=definition, span=ctx.value_span(definition))


@check
def security_requirement_with_more(ctx):
    # (judged on the value as written: `$(X),PASSWORD` adds a word whatever X is where this file is used)
    for name, definition, _setting, level, what in _requirement_settings(ctx):
        text = getattr(definition, "text", None) or ""  # (raw has self references expanded already)
        written = (text.split("=", 1)[1] if "=" in text else definition.raw or "").strip()
        if len([word for word in re.split(r"[\s,]+", written) if word]) < 2:
            continue
        extra = f"; a method list belongs in SEC_{level}_AUTHENTICATION_METHODS" if what == "AUTHENTICATION" else ""
        yield ctx.finding(f"{name} = {written} holds more than one word, but HTCondor reads the first letter of the "
                          f"value only: the rest is ignored{extra}", at=definition, span=ctx.value_span(definition))


_METHODS = re.compile(r"SEC_(" + _level_alternation(("DEFAULT",) + authorization.ABOVE_READ) + r")_"
                      r"AUTHENTICATION_METHODS", re.IGNORECASE)


@check
def insecure_auth_method(ctx):
    for name in ctx.names():
        found = _METHODS.fullmatch(name.split(".")[-1])
        if not found:
            continue
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        for method in _tokens(value(ctx, name)):
            if method.upper() in ("CLAIMTOBE", "ANONYMOUS"):
                at = (definition.raw or "").upper().find(method.upper())
                span = raw_span(ctx, definition, at, at + len(method)) if at >= 0 else ctx.value_span(definition)
                why = ("lets a client claim to be any user" if method.upper() == "CLAIMTOBE" else
                       "lets clients connect without any identity")
                level = found.group(1).upper()
                scope = "every level without its own method list (including WRITE and ADMINISTRATOR)" \
                    if level == "DEFAULT" else f"the {level} level"
                yield ctx.finding(f"{method} in {name} {why}, for {scope}; it is meant for testing only",
                                  at=definition, span=span)


@check
def settable_attrs_wildcard(ctx):
    enabled = [n for n in ("ENABLE_RUNTIME_CONFIG", "ENABLE_PERSISTENT_CONFIG")
               if (value(ctx, n) or "").strip().lower() in ("true", "yes", "1", "t", "y")]
    if not enabled:
        return
    for name in ctx.names():
        if not name.split(".")[-1].upper().startswith("SETTABLE_ATTRS_"):
            continue
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        if "*" in _tokens(value(ctx, name)):
            yield ctx.finding(f"{name} contains `*` while {' and '.join(enabled)} is on: anyone with that access "
                              f"level can change any knob of the running daemons with condor_config_val -set",
                              at=definition, span=ctx.value_span(definition))


def _legacy_allow(ctx) -> bool:
    return (value(ctx, "LEGACY_ALLOW_SEMANTICS") or "").strip().lower() in ("true", "yes", "1", "t", "y")


def _write_only_policy(ctx) -> bool:
    """ALLOW_WRITE is written (not `*`) and nothing reaches DAEMON or ADVERTISE_*: the pre-9.0 style."""
    definition = effective(ctx, "ALLOW_WRITE")
    if definition is None or not is_user(definition):
        return False
    written = value(ctx, "ALLOW_WRITE")
    if written is None or any(t in _WILDCARDS for t in _tokens(written)) or _legacy_allow(ctx):
        return False
    # (the collector's lists of the ADVERTISE_* levels: their own, then DAEMON's, then DEFAULT's)
    return not any((value(ctx, name) or "").strip() for level in authorization.ADVERTISE_LEVELS
                   for name in authorization.lookup_knobs(level, "COLLECTOR", release=ctx.primary_release))


@check
def allow_write_without_daemon(ctx):
    if not _write_only_policy(ctx):
        return
    definition = effective(ctx, "ALLOW_WRITE")
    yield ctx.finding(f"ALLOW_WRITE is set but neither ALLOW_DAEMON nor ALLOW_ADVERTISE_* (nor ALLOW_DEFAULT) is: "
                      f"since HTCondor {authorization.DEFAULT_DENY_SINCE} ALLOW_DAEMON and ALLOW_ADVERTISE_* no "
                      f"longer fall back to ALLOW_WRITE, and a level without an ALLOW list refuses everyone, so "
                      f"the collector refuses the ads of the daemons of other hosts",
                      at=definition, span=ctx.value_span(definition),
                      notes=[Text("ALLOW_WRITE is set at {where}", where=describe(definition))])


@check
def queue_all_users_trusted(ctx):
    from condorcfg.slots.knobs import Knobs

    definition = effective(ctx, "QUEUE_ALL_USERS_TRUSTED")
    if definition is None or not is_user(definition):
        return
    if Knobs(ctx.config).boolean("QUEUE_ALL_USERS_TRUSTED", False):  # (HTCondor's param_boolean reading)
        yield ctx.finding("QUEUE_ALL_USERS_TRUSTED is true: the schedd lets unauthenticated clients write to the job "
                          "queue and believes whatever Owner a client puts in a job ad, so anyone who can reach it "
                          "can submit, edit or remove jobs as any user", at=definition,
                          span=ctx.value_span(definition))


# Authentication methods HTCondor no longer has (GSI: removed in the 23 series).
_REMOVED_METHODS = {"GSI": "GSI authentication was removed in HTCondor 23.0"}
_ANY_METHODS = re.compile(r"SEC_\w+_AUTHENTICATION_METHODS", re.IGNORECASE)


@check
def removed_auth_method(ctx):
    for name in ctx.names():
        if not _ANY_METHODS.fullmatch(name.split(".")[-1]):
            continue
        definition = ctx.config.source(name)
        if not is_user(definition):
            continue
        methods = [m.upper() for m in _tokens(value(ctx, name))]
        for method in methods:
            if method not in _REMOVED_METHODS:
                continue
            others = list(dict.fromkeys(m for m in methods if m not in _REMOVED_METHODS))
            consequence = (f"only {', '.join(others)} remain{'s' if len(others) == 1 else ''}" if others else
                           "no method is left, so authentication at this level always fails")
            found = re.search(r"(?<![\w$(])" + method + r"(?!\w)", (definition.raw or "").upper())
            span = raw_span(ctx, definition, found.start(), found.end()) if found else ctx.value_span(definition)
            yield ctx.finding(f"{method} in {name}: {_REMOVED_METHODS[method]}, so it is never used; {consequence}",
                              at=definition, span=span)


# Since HTCondor 9.0 a permission level with no ALLOW list refuses everyone; only READ and WRITE are still
# granted to the identities of the levels that imply them; a daemon looks a level's list up along a chain
# (condorcfg.lint.authorization: lookup_levels, lookup_knobs).  Daemons of one host talk through their family
# session, which no list restricts: only levels that other hosts or users need are checked.
def _allow_chain(ctx, level: str) -> tuple[str, ...]:
    return authorization.lookup_levels(level, ctx.primary_release, legacy=_legacy_allow(ctx))


def _allow_lookups(ctx, level: str, daemon: str) -> list[str]:
    return authorization.lookup_knobs(level, daemon, release=ctx.primary_release, legacy=_legacy_allow(ctx))


def _has_allow_list(ctx, level: str, daemon: str) -> bool:
    """Does ``daemon`` find a non-empty ALLOW list for ``level`` (HTCondor's param() ignores empty values)?"""
    return any((value(ctx, name) or "").strip() for name in _allow_lookups(ctx, level, daemon))


def _closed_levels(ctx, daemons: set[str]) -> list[tuple[str, str, str]]:
    """(level, daemon that needs it, what breaks) for each level this host needs and leaves without a list."""
    needed = []
    personal = {"COLLECTOR", "SCHEDD", "STARTD"} <= daemons  # (one host: its daemons use the family session)
    if "COLLECTOR" in daemons and not personal and not _write_only_policy(ctx):  # (SEC806 explains that case)
        for level in authorization.ADVERTISE_LEVELS:
            needed.append((level, "COLLECTOR", "the collector refuses the ads of the startds, schedds and "
                                               "masters of other hosts, so they never join the pool"))
    if "SCHEDD" in daemons:
        if "NEGOTIATOR" not in daemons:
            needed.append(("NEGOTIATOR", "SCHEDD", authorization.refused("NEGOTIATOR", "SCHEDD")))
        granted = authorization.describe_levels(f"ALLOW_{level}" for level in authorization.implied_by("WRITE"))
        needed.append(("WRITE", "SCHEDD", f"{authorization.refused('WRITE', 'SCHEDD')} for all but the identities "
                                          f"{granted} grant"))
    for daemon, tool in (("SCHEDD", "condor_q"), ("COLLECTOR", "condor_status")):
        if daemon in daemons and not _has_allow_list(ctx, "WRITE", daemon):
            needed.append(("READ", daemon, f"{tool} is refused for users"))
    if daemons - {"MASTER"}:
        needed.append(("ADMINISTRATOR", "MASTER", authorization.refused("ADMINISTRATOR")))
    return [(level, daemon, harm) for level, daemon, harm in needed if not _has_allow_list(ctx, level, daemon)]


@check
def missing_allow_level(ctx):
    daemons = {d.upper() for d in _tokens(value(ctx, "DAEMON_LIST"))}
    closed = _closed_levels(ctx, daemons)
    if not closed:
        return
    levels = list(dict.fromkeys(level for level, _daemon, _harm in closed))
    harms = list(dict.fromkeys(harm for _level, _daemon, harm in closed))
    names = [f"ALLOW_{level}" for level in levels]
    listed = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    message = (f"{listed} {'is' if len(names) == 1 else 'are'} not set (nor ALLOW_DEFAULT): since HTCondor "
               f"{authorization.DEFAULT_DENY_SINCE} a level without an ALLOW list refuses everyone; on this host "
               f"{'; '.join(harms)}")
    notes = []
    for level, daemon, _harm in closed:
        chain = ", then ".join(f"ALLOW_{step}" for step in _allow_chain(ctx, level))
        notes.append(f"the {daemon.lower()} looks for {chain} (each also as ..._{daemon} and {daemon}.ALLOW_...): "
                     f"none is set")
    daemon_list = effective(ctx, "DAEMON_LIST")  # (set: the default runs the master alone, which needs nothing)
    yield ctx.finding(message, at=daemon_list, span=ctx.value_span(daemon_list) if is_user(daemon_list) else None,
                      notes=notes)
