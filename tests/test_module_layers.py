"""The ClassAd, configuration and slot packages have no import circles, not even through imports
inside functions.

Layers, bottom up: values/ast, printer, parser, operators, functions, evaluator (which compiles
calls through the functions; the functions reach the evaluator only through the evaluation
state they are handed).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(package: str) -> dict[str, set[str]]:
    graph = {}
    for path in (ROOT / package.replace(".", "/")).rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package):
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names
                             if (ROOT / f"{node.module}.{a.name}".replace(".", "/")).with_suffix(".py").exists())
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith(package))
        graph[module] = found - {module, package}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module, path):
        state[module] = 1
        for nxt in sorted(graph.get(module, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_the_classad_package_has_no_import_circles():
    assert _cycle(_imports("condorcfg.classad")) is None


def test_the_config_and_slots_packages_have_no_import_circles():
    assert _cycle(_imports("condorcfg.config")) is None
    assert _cycle(_imports("condorcfg.slots")) is None


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
