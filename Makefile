# Two environments: .venv has datasets 3.6 (loading scripts, the default),
# .venv-datasets5 the newest datasets 5.x (import entry point). Both install this
# package in editable mode.
PYTHON ?= python3
VENV ?= .venv
VENV5 ?= .venv-datasets5
PYTEST_ARGS ?=

.PHONY: setup demo test test3 test5 roundtrip clean

setup: $(VENV)/.installed $(VENV5)/.installed

$(VENV)/.installed: setup.cfg pyproject.toml requirements/datasets3.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q -r requirements/datasets3.txt -e .
	touch $@

$(VENV5)/.installed: setup.cfg pyproject.toml requirements/datasets5.txt
	$(PYTHON) -m venv $(VENV5)
	$(VENV5)/bin/python -m pip install -q -r requirements/datasets5.txt -e .
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/python -m unified_dialogue.demo

test: test3 test5

test3: $(VENV)/.installed
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

test5: $(VENV5)/.installed
	$(VENV5)/bin/python -m pytest $(PYTEST_ARGS)

# Byte-exact round trip of a local copy: make roundtrip DATA=../shared/data/sgd
roundtrip: $(VENV)/.installed
	$(VENV)/bin/python -m unified_dialogue.roundtrip sgd $(DATA)

clean:
	rm -rf $(VENV) $(VENV5) build *.egg-info
