"""Render one rule's documentation page (Markdown) from its YAML entry with ``templates/rule.md.j2``.

Used by ``condorcfg explain``, the SARIF rule help, and ``tools/make_rule_docs.py``.
"""
from __future__ import annotations

from pathlib import Path

_TEMPLATE = None


def render_rule(rule) -> str:
    global _TEMPLATE
    if _TEMPLATE is None:
        import jinja2

        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).with_name("templates"))),
                                 autoescape=False, keep_trailing_newline=True)
        env.filters["profile_yaml"] = profile_yaml
        _TEMPLATE = env.get_template("rule.md.j2")
    from condorcfg.lint.rules import EXAMPLE_PROFILE

    text = _TEMPLATE.render(rule=rule, profile_name=EXAMPLE_PROFILE)
    import re

    text = "\n".join(line.rstrip() for line in text.strip().splitlines()) + "\n"
    return re.sub(r"\n{3,}", "\n\n", text)  # (one blank line between blocks, whatever the template's loops leave)


def profile_yaml(profile: dict) -> str:
    """A machine profile as the YAML a reader saves (flat keys; a mapping written inline)."""
    import json

    lines = []
    for key, value in profile.items():
        shown = json.dumps(value) if isinstance(value, (dict, str)) else str(value).lower() \
            if isinstance(value, bool) else str(value)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)


def doc_filename(rule) -> str:
    return f"{rule.code}-{rule.name}.md"
