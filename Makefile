# Two entry points, both starting from a fresh machine:
#   make run   - install condorcfg and run it on the example pool in examples/
#   make test  - install condorcfg with its test extra (incl. the HTCondor oracle) and run the tests;
#                tests/installed builds the wheel, installs it (not editable) in a fresh venv and runs
#                it from outside the checkout, pre-commit hook included
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test install install-test bench

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# What users get: a regular (not editable) install.
install: $(PY)
	$(PY) -m pip install -q .

install-test: $(PY)
	$(PY) -m pip install -q -e '.[test]'

run: install
	$(VENV)/bin/condorcfg value --verbose --config examples/etc/condor_config \
		--machine examples/machines/ep-64core.yaml START IS_OWNER NUM_CPUS
	$(VENV)/bin/condorcfg ads --config examples/etc/condor_config --machine examples/machines/ep-64core.yaml --format long
	$(VENV)/bin/condorcfg lint --config-root examples/etc/condor_config --machine examples/machines/ep-64core.yaml
	cd examples/pool && $(abspath $(VENV))/bin/condorcfg lint && $(abspath $(VENV))/bin/condorcfg value START \
		&& $(abspath $(VENV))/bin/condorcfg test

test: install-test
	$(PY) -m pytest

bench: install-test
	$(PY) benchmarks/run_all.py
