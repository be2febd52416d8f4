"""The command line shared by every command that reads a configuration: value, dump, ads, match, diff.

    --config FILE       a configuration file or config.d directory; repeatable, all are read in
                        order as one configuration
    PATH ...            (dump, ads, match) the same as --config, read after the --config ones
    --machine PROFILE   the host facts (YAML/JSON profile); default: this host
    --subsystem S       the daemon the configuration is read as (value/dump: TOOL; ads/match: STARTD)
    --local-name N      the local name (N.KNOB settings)
    --sysroot DIR       absolute paths the configuration names are read under DIR
    --allow-exec        run the commands the configuration names (include : cmd |)
    --role NAME         a role of the project settings (a pool repository's kind of host)
    --project FILE      the project settings file (default: found upward from here)

With neither ``--config`` nor PATH, the project settings found upward from the current directory
name the configuration when they have ``roles`` (or ``roots``): the role ``--role`` chooses, read as
its hosts read it (:mod:`condorcfg.roles`); several roles and no ``--role`` is a usage error naming
them (``value`` answers for each, labelled).  Otherwise the configuration is found as HTCondor finds
it: ``CONDOR_CONFIG``, then the system locations (:mod:`condorcfg.config.host`).  Finding none is an
error, as it is for HTCondor's tools, not a quiet answer from the built-in defaults;
``CONDOR_CONFIG=ONLY_ENV`` keeps its HTCondor meaning (the environment only).

Every problem with the input raises :class:`~condorcfg.diagnostics.CondorcfgError`;
:func:`condorcfg.cli.main` prints its diagnostic as one line and exits 2.
"""
from __future__ import annotations

import os
import sys

from condorcfg.diagnostics import CondorcfgError, Diagnostic

def add_config_arguments(parser, *, config: bool = True, positional: bool = False,
                         subsystem_default: str = "TOOL, as condor_config_val") -> None:
    """The shared options; ``config=False`` leaves out ``--config`` (diff names its two configurations
    as OLD NEW), ``positional`` adds PATH arguments that mean the same as ``--config``;
    ``subsystem_default`` says in the help which subsystem the command reads as by default."""
    if config:
        parser.add_argument("--config", action="append", metavar="FILE",
                            help="configuration file or config.d directory (repeatable: read in order as one "
                                 "configuration); default: CONDOR_CONFIG, then /etc/condor/condor_config like "
                                 "HTCondor")
    if positional:
        parser.add_argument("paths", nargs="*", metavar="PATH",
                            help="configuration files or config.d directories, as --config (read after those)")
    parser.add_argument("--machine", metavar="PROFILE",
                        help="machine profile (YAML/JSON) giving the host facts; default: this host")
    parser.add_argument("--subsystem", metavar="S", help=f"read as daemon subsystem S (default {subsystem_default})")
    parser.add_argument("--local-name", metavar="N", help="read with local name N (N.KNOB settings)")
    parser.add_argument("--sysroot", metavar="DIR",
                        help="read the absolute paths the configuration names (LOCAL_CONFIG_FILE, "
                             "LOCAL_CONFIG_DIR, include) under DIR, e.g. a copy of a host's /etc")
    parser.add_argument("--allow-exec", action="store_true",
                        help="run the commands the configuration names (include : cmd |); off by default")
    parser.add_argument("--role", action="append", metavar="NAME",
                        help="read the configuration of this role of the project settings (default: the only one)")
    parser.add_argument("--project", metavar="FILE",
                        help="project settings file (default: .condorcfg.yaml or pyproject.toml [tool.condorcfg] "
                             "found upward from here)")


def config_paths(args) -> list[str] | None:
    """The configuration the command line names (--config, then PATH), or None: discover it."""
    paths = [*(getattr(args, "config", None) or []), *(getattr(args, "paths", None) or [])]
    return paths or None


def require_configuration(environ=None) -> None:
    """Refuse to answer from the built-in defaults alone when no configuration can be found.

    HTCondor's tools stop when neither CONDOR_CONFIG nor a system location gives a file; a
    quiet default answer (``START`` = false ...) would look like a fact about the pool.
    """
    from condorcfg.config.host import discover_config

    found, notes, only_env = discover_config(os.environ if environ is None else environ)
    if found or only_env:
        return
    message = notes[0].message if notes else "no configuration found"
    message = message.replace("; using built-in defaults only", "; pass --config FILE or correct CONDOR_CONFIG")
    if not message.startswith("no configuration found"):
        message = f"no configuration found: {message}"
    raise CondorcfgError(Diagnostic("error", message, None, code="no-config"))


def project_roles(args, paths):
    """(project, roles chosen by --role) when the command names no configuration and the project settings
    name roles (or roots); None otherwise.  --role without roles to choose from is a usage error."""
    names = getattr(args, "role", None)
    if paths:
        if names:
            raise _usage("--role chooses among the project's roles: with --config or PATH, name no role")
        return None
    from condorcfg import roles  # (only without --config: `value --config F` starts without the settings code)
    from condorcfg.lint.project import for_command

    project = for_command(getattr(args, "project", None))
    if not project.all_roles():
        if names:
            raise _usage(f"--role needs roles in the project settings ({project.path or 'none found'})")
        return None
    if getattr(args, "sysroot", None):
        raise _usage("--sysroot does not apply to the roles of the project settings: each role says where its "
                     "host's files come from; or name the configuration with --config")
    return project, roles.chosen(project, names)


def one_role(args, paths):
    """(project, role) of :func:`project_roles` when it chooses exactly one; several is a usage error."""
    found = project_roles(args, paths)
    if found is None:
        return None
    project, chosen = found
    if len(chosen) > 1:
        raise _usage(f"the project settings ({project.path}) have several roles ({', '.join(r.name for r in chosen)}); "
                     f"choose one with --role NAME")
    return project, chosen[0]


def role_machine(args, found):
    """The machine of ``--machine`` for the role of ``found`` (a name of its profiles, or a file), else its
    default; for no role, ``--machine`` as a file (None: this host)."""
    if found is None:
        return args.machine
    from condorcfg import roles

    project, role = found
    return roles.machine(role, project, args.machine)


def _usage(message: str) -> CondorcfgError:
    return CondorcfgError(Diagnostic("error", message, None, code="usage"))


def load_config(args, paths, *, machine=None, subsystem: str | None = None, mode: str = "host", found=False):
    """Read the configuration ``paths`` (None: the project's role, else discover it) with the shared options
    of ``args``.

    ``machine`` (a MachineProfile) replaces ``--machine``, ``subsystem`` the default subsystem,
    ``mode`` the reader's mode ("repository" for diff: see :mod:`condorcfg.config.reader`); ``found``: the
    (project, role) already chosen (:func:`one_role`), or None for none.  Raises CondorcfgError for input
    that cannot be used, including a reader diagnostic that says so without stopping the read.
    """
    import condorcfg
    from condorcfg.config.reader import UNUSABLE_INPUT

    if found is False:
        found = one_role(args, paths)
    if found is not None:
        from condorcfg import roles

        project, role = found
        config = roles.read(role, project, machine=machine if machine is not None else role_machine(args, found),
                            subsystem=args.subsystem or subsystem, local_name=args.local_name,
                            allow_exec=args.allow_exec)
    else:
        if paths is None:
            require_configuration()
        config = condorcfg.load(paths, machine=machine if machine is not None else args.machine,
                                subsystem=args.subsystem or subsystem, local_name=args.local_name,
                                allow_exec=args.allow_exec, sysroot=args.sysroot, mode=mode)
    unusable = [d for d in config.diagnostics if d.code in UNUSABLE_INPUT and d.severity == "error"]
    if unusable:
        raise CondorcfgError(unusable[0])
    return config


def load_each(args) -> list[tuple[str | None, object]]:
    """(role name, configuration) of every role --role chooses (value answers for each); [(None, config)]
    when the command line names the configuration or the project has no roles."""
    paths = config_paths(args)
    found = project_roles(args, paths)
    if found is None:
        return [(None, load_config(args, paths, found=None))]
    project, chosen = found
    return [(role.name or None, load_config(args, paths, found=(project, role))) for role in chosen]


def load_from_args(args):
    """The configuration value and dump read: --config and PATH, or the discovered one."""
    return load_config(args, config_paths(args))


def print_reader_warnings(config) -> None:
    for diagnostic in config.diagnostics:
        print(diagnostic.format(), file=sys.stderr)
