"""Rendering an untrusted Jinja2 template (condorcfg/config/jinja.py): output, errors at the right line,
the sandbox, and the counted limits on work and size.  No test looks at a clock: the limits are counted."""
from __future__ import annotations

import sys

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from condorcfg.config import jinja
from condorcfg.config.jinja import MAX_RENDER_STEPS, MAX_RENDERED_BYTES, render
from condorcfg.diagnostics import CondorcfgError
from condorcfg.inputs import load_yaml

SOURCE = "roles/condor/templates/50-pool.conf.j2"
VARS = {
    "pool": "cm.example.org",
    "slots": 4,
    "gpu": False,
    "hosts": ["a.example.org", "b.example.org"],
    "site": {"name": "EXAMPLE", "ports": [9618, 9619], "opts": {"shared_port": True}},
}
WORK_OR_SIZE = ("steps of work", "would make a value of more than", "would make a number of more than",
                "range() of more than", "rendered output is larger than")


def failure(text: str, variables=VARS) -> CondorcfgError:
    with pytest.raises(CondorcfgError) as caught:
        render(text, variables, SOURCE)
    error = caught.value
    diagnostic = error.diagnostic
    assert diagnostic.code == "template-render"
    assert diagnostic.severity == "error"
    assert diagnostic.location.file == SOURCE
    shown = diagnostic.format()
    assert "Traceback" not in shown and 'File "' not in shown and "jinja2/" not in shown
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    return error


def line_of(error: CondorcfgError) -> int:
    return error.diagnostic.location.line


# --- rendering ------------------------------------------------------------------------------------------------

def test_variables_nested_values_loops_and_conditionals():
    text = ("CONDOR_HOST = {{ pool }}\n"
            "NUM_SLOTS = {{ slots * 2 }}\n"
            "{% if gpu %}USE_GPUS = True\n{% else %}USE_GPUS = False\n{% endif %}"
            "ALLOW_WRITE = {{ hosts | join(', ') }}\n"
            "{% for port in site.ports %}PORT_{{ loop.index }} = {{ port }}\n{% endfor %}"
            "SITE = {{ site['name'] | lower }}\n"
            "SHARED = {{ site.opts.shared_port }}\n")
    assert render(text, VARS, SOURCE) == (
        "CONDOR_HOST = cm.example.org\n"
        "NUM_SLOTS = 8\n"
        "USE_GPUS = False\n"
        "ALLOW_WRITE = a.example.org, b.example.org\n"
        "PORT_1 = 9618\n"
        "PORT_2 = 9619\n"
        "SITE = example\n"
        "SHARED = True\n")


def test_variables_as_read_from_yaml_with_anchors():
    variables = load_yaml("common: &common {memory: 2048, tags: [a, b]}\n"
                          "slots: [{name: s1, <<: *common}, {name: s2, <<: *common}]\n"
                          "shared: [*common, *common]\n")
    text = ("{% for s in slots %}SLOT_{{ s.name }} = {{ s.memory }} {{ s.tags|join('+') }}\n{% endfor %}"
            "N = {{ shared|map(attribute='memory')|sum }}\n")
    assert render(text, variables, SOURCE) == "SLOT_s1 = 2048 a+b\nSLOT_s2 = 2048 a+b\nN = 4096\n"


def test_the_trailing_newline_is_kept_and_none_is_added():
    assert render("A = {{ slots }}\n", VARS, SOURCE) == "A = 4\n"
    assert render("A = {{ slots }}\n\n", VARS, SOURCE) == "A = 4\n\n"
    assert render("A = {{ slots }}", VARS, SOURCE) == "A = 4"


def test_macros_blocks_and_set_blocks_render():
    text = ("{% macro knob(name, value) %}{{ name }} = {{ value }}{% endmacro %}"
            "{% set body %}{% for h in hosts %}{{ knob('H' ~ loop.index, h) }}\n{% endfor %}{% endset %}"
            "{{ body }}{% filter upper %}tail{% endfilter %}\n"
            "{% autoescape true %}{{ '<a>' ~ slots }}{% endautoescape %}\n")
    # (trim_blocks, as Ansible renders: the line break right after a block tag is not written)
    assert render(text, VARS, SOURCE) == "H1 = a.example.org\nH2 = b.example.org\nTAIL&lt;a&gt;4"


# What the environment hooks for counting (comparisons, dictionary keys, operators, calls, filters, tests,
# joins) must not change what an ordinary template writes: compare with Jinja2's own sandbox.
SAME_AS_JINJA2 = [
    "{{ 1 < slots < 10 }} {{ 1 < 0 < nothing }} {{ slots in [1, 4] }} {{ 'a' not in 'abc' }} {{ slots != 4 }}",
    "{{ {'a': 1, slots: 2} }} {{ {'k': hosts}['k'][1] }} {{ dict(a=1) }}",
    "{{ slots + 1 }} {{ slots - 1 }} {{ slots * 3 }} {{ 2 ** 10 }} {{ 7 % 3 }} {{ 'a' + 'b' }} {{ [1] + [2] }}",
    "{{ 9**9**9 }} {{ 2 ** -1 }} {{ (-1) ** (10 ** 30) }} {{ 0 ** (10 ** 30) }}",  # Jinja2's ** binds to the left
    "{{ '%s:%d' % (pool, 9618) }} {{ '%(a)s' % {'a': 1} }} {{ '{}-{:>4}'.format(pool, slots) }}",
    "{{ 'ab' * 3 }} {{ [0] * 3 }} {{ pool.upper() }} {{ pool.split('.') }} {{ 'x'.ljust(4) }}|",
    "{{ hosts|map('upper')|join(',') }} {{ hosts|select('equalto', 'a.example.org')|list }} {{ range(5)|sum }}",
    "{{ [[1], [2]]|sum(start=[]) }} {{ site|dictsort }} {{ hosts|batch(1, 'x')|list }} {{ 'a b'|center(7) }}|",
    "{{ 'a\nb'|indent(2) }} {{ site|tojson }} {{ hosts[0][:3] }} {{ slots is divisibleby 2 }}",
    "{{ site.opts.items()|list }} {{ site.keys() - ['name'] }} {{ hosts.index(hosts[1]) }} {{ hosts.count('x') }}",
    "{{ 'x,y'|replace(',', ';') }} {{ 'x'|format() }} {{ '%s'|format(1) }} {{ 'a\tb'.expandtabs(4) }}",
    "{% set ns = namespace(n=0) %}{% for h in hosts %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }} {{ ns }}",
    "{% for k, v in site.opts.items() %}{{ k }}={{ v }}{% endfor %} {{ cycler(1, 2).next() }}",
]


@pytest.mark.parametrize("text", SAME_AS_JINJA2)
def test_rendering_matches_jinja2s_own_sandbox(text):
    plain = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    assert render(text, VARS, SOURCE) == plain.from_string(text).render(VARS)


# --- errors: the right kind, file and line, and what to do ----------------------------------------------------

def test_a_syntax_error_is_reported_at_its_line():
    error = failure("A = 1\nB = {{ slots + }}\n")
    assert line_of(error) == 2
    assert "syntax error" in error.diagnostic.message and "correct the template" in error.diagnostic.message


def test_an_undefined_variable_is_named_at_its_line_with_where_to_define_it():
    error = failure("A = {{ pool }}\nB = 2\nC = {{ schedd_name }}\n")
    assert line_of(error) == 3
    assert "schedd_name" in error.diagnostic.message
    assert any("vars:" in note and ".condorcfg.yaml" in note for note in error.diagnostic.notes)


def test_an_undefined_attribute_is_reported_at_its_line():
    error = failure("A = 1\n{% for h in hosts %}\n{{ site.opts.nope }}\n{% endfor %}\n")
    assert line_of(error) == 3
    assert "nope" in error.diagnostic.message


def test_an_error_inside_a_macro_is_reported_at_the_macros_line():
    error = failure("{% macro m(v) %}\n{{ v.missing }}\n{% endmacro %}\n\n{{ m(site) }}\n")
    assert line_of(error) == 2


@pytest.mark.parametrize("text, kind, name, line", [
    ("A = 1\nB = 2\nC = 3\nD = {{ site | to_nice_yaml }}\n", "filter", "to_nice_yaml", 4),
    ("A = 1\n{% if slots %}{{ pool | ipaddr }}{% endif %}\n", "filter", "ipaddr", 2),  # found at run time
    ("A = 1\n{{ hosts | map('to_json') | list }}\n", "filter", "to_json", 2),
    ("{% if pool is ip_address %}x{% endif %}\n", "test", "ip_address", 1),
])
def test_an_unknown_filter_or_test_is_named_with_how_to_render_it_elsewhere(text, kind, name, line):
    error = failure(text)
    assert line_of(error) == line
    assert f"unknown Jinja2 {kind} {name}" in error.diagnostic.message
    assert "built-in" in error.diagnostic.message
    assert any("to_nice_yaml" in note and "condorcfg lint --fragment" in note for note in error.diagnostic.notes)


@pytest.mark.parametrize("text, tag", [
    ("A = 1\n{% include 'other.j2' %}\n", "include"),
    ("A = 1\n{% import 'macros.j2' as m %}\n", "import"),
    ("A = 1\n{% from 'macros.j2' import knob %}\n", "from ... import"),
    ("A = 1\n{% extends 'base.j2' %}\n", "extends"),
    ("A = 1\n{% if false %}{% include 'never.j2' %}{% endif %}\n", "include"),
])
def test_include_import_and_extends_are_not_supported(text, tag):
    error = failure(text)
    assert line_of(error) == 2
    assert error.diagnostic.message == (f"`{tag}` is not supported: condorcfg renders one file; lint the rendered "
                                        f"output instead")


def test_any_other_exception_is_named_without_a_traceback():
    error = failure("A = 1\nB = {{ slots / 0 }}\n")
    assert line_of(error) == 2
    assert "ZeroDivisionError" in error.diagnostic.message


def test_endless_recursion_is_an_error_not_a_crash():
    error = failure("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}\n")
    assert "RecursionError" in error.diagnostic.message
    failure("{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}")
    failure("{% if slots %}" * 500 + "{% endif %}" * 500)
    error = failure("A = 1\n" + "".join(f"{{% for a{i} in hosts %}}" for i in range(25)) + "{% endfor %}" * 25)
    assert "too many statically nested blocks" in error.diagnostic.message and "line" not in error.diagnostic.message


# --- the sandbox ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "{{ ''.__class__.__mro__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ self._TemplateReference__context }}",
    "{{ lipsum.__globals__ }}",
    "{{ joiner.__init__.__globals__['os'] }}",
    "{{ pool|attr('__class__') }}",
    "{{ '{0.__class__.__mro__}'.format(pool) }}",
    "{{ namespace.__init__ }}",
    "{{ hosts.append('evil') }}",
    "{{ site.update({'name': 'evil'}) }}",
])
def test_sandbox_escapes_and_changes_are_refused(text):
    variables = {**VARS, "hosts": list(VARS["hosts"]), "site": dict(VARS["site"])}
    error = failure("A = 1\n" + text + "\n", variables)
    assert line_of(error) == 2
    assert error.diagnostic.message.startswith("refused by the sandbox:")
    assert variables["hosts"] == VARS["hosts"] and variables["site"] == VARS["site"]


# --- limits: counted, never timed -----------------------------------------------------------------------------

def test_nested_loops_end_with_the_work_limit_at_the_loops_line():
    error = failure("A = 1\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n")
    assert line_of(error) == 2
    assert error.diagnostic.message.startswith(f"the template does more than {MAX_RENDER_STEPS} steps of work")


def test_the_work_is_counted_and_bounded_and_a_callers_trace_function_is_kept():
    """An outer trace function (as coverage installs) still sees the template run, is reinstalled
    afterwards, and counts no more template lines than the limit allows."""
    lines = {"template": 0}

    def outer(frame, event, arg):
        if SOURCE in frame.f_code.co_filename:  # the compiled template's code
            return local
        return None

    def local(frame, event, arg):
        if event == "line":
            lines["template"] += 1
        return local

    before = sys.gettrace()
    sys.settrace(outer)
    try:
        with pytest.raises(CondorcfgError, match="steps of work"):
            render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", VARS, SOURCE)
        assert sys.gettrace() is outer
    finally:
        sys.settrace(before)
    assert 0 < lines["template"] <= MAX_RENDER_STEPS
    assert sys.gettrace() is before


def test_no_trace_function_is_left_behind():
    before = sys.gettrace()
    render("{{ pool }}", VARS, SOURCE)
    with pytest.raises(CondorcfgError):
        render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", VARS, SOURCE)
    assert sys.gettrace() is before


def test_an_ordinary_template_spends_a_small_part_of_the_work_limit(monkeypatch):
    """A 200-line template writing 1,000 lines from loops over a role's hosts renders within a tenth of the
    limit (it takes about 80,000 steps)."""
    text = "".join(f"KNOB_{i} = {{{{ pool }}}}{{% if slots > 2 %}} {{{{ hosts|join(',') }}}}{{% endif %}}\n"
                   f"{{% for h in hosts %}}H_{i}_{{{{ loop.index }}}} = {{{{ h|upper }}}}\n{{% endfor %}}"
                   for i in range(100))
    monkeypatch.setattr(jinja, "MAX_RENDER_STEPS", MAX_RENDER_STEPS // 10)
    assert render(text, {**VARS, "hosts": [f"host{i}.example.org" for i in range(10)]}, SOURCE).count("\n") == 1000


PATHOLOGICAL = [
    "{{ 'x' * 10**9 }}",
    "{{ 10**9 * 'x' }}",
    "{{ [0] * 10**9 }}",
    "{{ 'x'.ljust(10**9) }}",
    "{{ 'x'.center(10**9) }}",
    "{{ 'x'.zfill(10**9) }}",
    "{{ (1).to_bytes(10**9, 'big') }}",
    "{{ ('\t' * 1000).expandtabs(10**6) }}",
    "{{ 9 ** (9 ** 9) }}",
    "{% set ns = namespace(n=3) %}{% for i in range(40) %}{% set ns.n = ns.n * ns.n %}{% endfor %}{{ ns.n }}",
    "{{ range(10**9)|list }}",
    "{{ range(10**30) }}",
    "{{ 'x'|center(1000000000) }}",
    "{{ 'x'|center(10**9) }}",
    "{{ 'x'|indent(10**9, true) }}",
    "{{ [1]|batch(10**9, 'x')|list }}",
    "{{ [1]|slice(10**9)|list }}",
    "{{ '%1000000000s' % 'x' }}",
    "{{ '%*s' % (10**9, 'x') }}",
    "{{ '%.1000000000f' % 1.5 }}",
    "{{ '{:>1000000000}'.format('x') }}",
    "{{ '{:>{}}'.format('x', 10**9) }}",
    "{{ '%s'|format('x')|center(10**9) }}",
    "{{ ('x' * 1000)|replace('', 'y' * 1000)|replace('', 'z' * 1000) }}",
    "{{ ('x' * 1000).replace('', 'y' * 1000).replace('', 'z' * 1000) }}",
    "{{ range(100000)|join('x' * 1000) }}",
    "{{ ('x' * 10000)|wordwrap(1, wrapstring='y' * 10000) }}",
    "{{ ([1] * 10000)|tojson(indent=100000) }}",
    "{{ lipsum(10**6) }}",
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{% set x = range(100000)|list %}{% for i in x %}{{ x.count(-1) }}{% endfor %}",
    "{% set x = range(100000)|list %}{% for i in x %}{{ -1 in x }}{% endfor %}",
    # doubling: each step is one line, the value grows exponentially
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = '%s%s' % (ns.s, ns.s) %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = [ns.s, ns.s]|join %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = (ns.s, ns.s)|string %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s %}{{ ns.s }}{{ ns.s }}{% endset %}"
    "{% endfor %}",
    # a value sharing itself: small in memory, astronomically long once written, compared or hashed
    "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}",
    "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}"
    "{{ ns.l|string|length }}",
    "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}"
    "{{ 'a' ~ ns.l }}",
    "{% set ns = namespace(a=[1], b=[1]) %}{% for i in range(64) %}{% set ns.a = [ns.a, ns.a] %}"
    "{% set ns.b = [ns.b, ns.b] %}{% endfor %}{{ ns.a == ns.b }}",
    "{% set ns = namespace(t=(1,)) %}{% for i in range(64) %}{% set ns.t = (ns.t, ns.t) %}{% endfor %}"
    "{{ {ns.t: 1} }}",
    "{% set ns = namespace(t=(1,)) %}{% for i in range(64) %}{% set ns.t = (ns.t, ns.t) %}{% endfor %}"
    "{{ [ns.t, ns.t]|unique|list }}",
    # output
    "{% set s = 'x' * 1000000 %}{% for i in range(20) %}{{ s }}{% endfor %}",
    "{% for i in range(100000) %}" + "x" * 1000 + "{% endfor %}",
]


@pytest.mark.parametrize("text", PATHOLOGICAL)
def test_pathological_templates_end_with_the_work_or_size_limit(text, monkeypatch):
    # A tenth of the limit keeps the suite quick; the ways the limits are reached stay the same.
    monkeypatch.setattr(jinja, "MAX_RENDER_STEPS", MAX_RENDER_STEPS // 10)
    error = failure(text)
    assert error.diagnostic.message.startswith(("the template does more than", "the operator", "calling",
                                                "the filter", "str.format", "range()", "joining", "writing",
                                                "comparing", "a dictionary key", "the rendered output")), error
    assert any(part in error.diagnostic.message for part in WORK_OR_SIZE)
    assert "make it" in error.diagnostic.message or "make the" in error.diagnostic.message


def test_the_output_is_bounded_by_the_readers_limit():
    error = failure("{% set s = 'x' * 1000000 %}{% for i in range(20) %}{{ s }}{% endfor %}")
    assert error.diagnostic.message.startswith(f"the rendered output is larger than {MAX_RENDERED_BYTES} bytes")
    assert len(render("{{ 'x' * 1000000 }}", VARS, SOURCE)) == 1000000


def test_the_output_limit_is_the_readers_limit_for_one_file():
    from condorcfg.config.reader import MAX_FILE_SIZE

    assert MAX_RENDERED_BYTES == MAX_FILE_SIZE


def test_a_too_large_value_is_reported_at_its_line():
    error = failure("A = 1\nB = 2\nC = {{ 'x' * 10**9 }}\n")
    assert line_of(error) == 3
    assert error.diagnostic.message == (f"the operator * would make a value of more than {MAX_RENDERED_BYTES} "
                                        f"characters; make it smaller")


def test_a_too_large_template_is_refused_before_compiling():
    error = failure("x" * (jinja.MAX_TEMPLATE_BYTES + 1))
    assert "larger than" in error.diagnostic.message
