"""The pool's roles as every command reads them.

A project's settings (:mod:`condorcfg.lint.project`) name the kinds of host of a pool (``roles``,
or one role per ``roots`` entry); each says how its configuration is assembled from the
repository (a :class:`~condorcfg.config.hostview.HostView`).  Commands never read a role any
other way than through :func:`chosen` (which roles, ``--role``), :func:`read` (its configuration)
and :func:`machine` / :func:`machines` (its machine profiles), so lint, diff, test, upgrade and the
configuration commands all see the same hosts.
"""
from __future__ import annotations

import os

from condorcfg.diagnostics import Diagnostic, Location
from condorcfg.lint.project import ProjectConfig, ProjectConfigError, Role, resolve_machine


def chosen(project: ProjectConfig, names: list[str] | None) -> list[Role]:
    """The roles ``--role NAME`` (repeatable) chooses, all of them without it.  ``--role ep`` also
    chooses the hosts of ep (``ep@ep01``).  A name the project does not have is a usage error."""
    roles = project.all_roles()
    if not names:
        return roles
    picked: list[Role] = []
    for name in names:
        found = [role for role in roles if role.name == name or role.name.startswith(name + "@")]
        if not found:
            known = ", ".join(role.name for role in roles if role.name) or "none"
            raise usage(project, f"no role named {name!r} in the project settings (its roles: {known})")
        picked += [role for role in found if role not in picked]
    return picked


def usage(project: ProjectConfig, message: str) -> ProjectConfigError:
    return ProjectConfigError(Diagnostic("error", message, Location(project.path or "<command line>", 0, 1),
                                         code="project-config"))


def read(role: Role, project: ProjectConfig, *, machine=None, subsystem: str | None = None,
         local_name: str | None = None, allow_exec: bool = False, release: str | None = None):
    """The role's configuration, read as its hosts read it (the reader's repository mode)."""
    import condorcfg

    from condorcfg.config.hostview import shown_path

    root = role.root if role.root in (role.host.labels if role.host else ()) else shown_path(role.root)
    return condorcfg.load(root, machine=machine, subsystem=subsystem, local_name=local_name,
                          allow_exec=allow_exec, mode="repository", host=role.host,
                          allowed_dirs=allowed_dirs(project), release=release if release else role.version)


def allowed_dirs(project: ProjectConfig) -> list[str]:
    """Folders whose files count as part of every role's configuration: the project's."""
    return [project.directory] if project.path else []


def machine(role: Role, project: ProjectConfig, choice: str | None):
    """The MachineProfile of ``--machine choice`` (a name of the role's profiles, or a file) or the role's
    default; None for this host."""
    return resolve_machine(_as_project(role, project), choice)


def machines(role: Role, project: ProjectConfig) -> dict:
    """{name: MachineProfile} of the role's fleet: its machine profiles, else its default machine; empty
    when it names none."""
    view = _as_project(role, project)
    if role.machine_profiles:
        return {name: resolve_machine(view, name) for name in role.machine_profiles}
    if role.machine is not None:
        return {"default": resolve_machine(view, None)}
    return {}


def _as_project(role: Role, project: ProjectConfig) -> ProjectConfig:
    """The project as one role sees it: its own profiles and default machine."""
    view = ProjectConfig(path=project.path, directory=project.directory)
    view.machine_profiles, view.machine = role.machine_profiles, role.machine
    return view


def rebased(role: Role, move) -> Role:
    """The role with every repository path it names moved by ``move`` (a path -> path function: the same
    files in a git revision's directory); the packaged root and profiles stay where they are."""
    from condorcfg.config.hostview import HostView, Mount

    host = role.host
    if host is not None:
        host = HostView(move(host.sysroot) if host.sysroot else None,
                        [Mount(m.host, [move(s) for s in m.sources], m.folder) for m in host.mounts],
                        list(host.removed), host.root_path, dict(host.variables),
                        {move(path): label for path, label in host.labels.items()})
    return Role(role.name, move(role.root), host, role.machine_profiles, role.machine, role.version, role.line)


def reading(roles: list[Role], configs: list) -> dict[str, list[Role]]:
    """{real path of each file read: the roles reading it}, from their configurations."""
    readers: dict[str, list[Role]] = {}
    for role, config in zip(roles, configs):
        for file in config.files:
            readers.setdefault(os.path.realpath(file), []).append(role)
    return readers
