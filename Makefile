# Two environments: .venv has datasets 3.6 (loading scripts, the default),
# .venv-datasets5 the newest datasets 5.x (import entry point). Both install this
# package in editable mode, and trl without its dependencies (requirements/templates.txt).
PYTHON ?= python3
VENV ?= .venv
VENV5 ?= .venv-datasets5
PYTEST_ARGS ?=

.PHONY: setup demo test test-all test3 test5 roundtrip clean

setup: $(VENV)/.installed $(VENV5)/.installed

$(VENV)/.installed: setup.cfg pyproject.toml requirements/datasets3.txt requirements/templates.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q -r requirements/datasets3.txt -e .
	$(VENV)/bin/python -m pip install -q --no-deps -r requirements/templates.txt
	touch $@

$(VENV5)/.installed: setup.cfg pyproject.toml requirements/datasets5.txt requirements/templates.txt
	$(PYTHON) -m venv $(VENV5)
	$(VENV5)/bin/python -m pip install -q -r requirements/datasets5.txt -e .
	$(VENV5)/bin/python -m pip install -q --no-deps -r requirements/templates.txt
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/python -m unified_dialogue.tools.demo

# make test: the whole suite under datasets 5.x, then under 3.6 what can differ between the
# lines (the tests marked both_lines: loading, caching, features, the import path, loading
# scripts), so every test runs under at least one line; make test-all: the whole suite under
# both, for releases (docs/testing.md). Both environments first: tests/test_cache_lines.py loads
# a build of one line under the other. JOBS: pytest-xdist's processes (0: one process, no xdist);
# worksteal: each process takes a run of consecutive tests, so a module's fixtures are mostly built once.
JOBS ?= 2
XDIST = -n $(JOBS) --dist worksteal

test: setup
	$(VENV5)/bin/python -m pytest $(XDIST) $(PYTEST_ARGS)
	$(VENV)/bin/python -m pytest $(XDIST) -m both_lines $(PYTEST_ARGS)

test-all: setup test3 test5

test3: $(VENV)/.installed
	$(VENV)/bin/python -m pytest $(XDIST) $(PYTEST_ARGS)

test5: $(VENV5)/.installed
	$(VENV5)/bin/python -m pytest $(XDIST) $(PYTEST_ARGS)

# Environments of their own, each built by its env-* target alone (the docs name the target
# beside each command that needs it) and by the test target that runs in it:
#   make env-harness      .venv-harness: lm-eval with its [api] extra, no torch
#                         (requirements/harness.txt); lm-eval's server backends, the harness tests
#   make env-harness-hf   .venv-harness-hf: the same and what lm-eval's hf backend needs (a CPU
#                         torch, transformers; requirements/harness-hf.txt), and TRL's chat
#                         templates as files (requirements/templates.txt) for the tiny model
#   make env-rl           .venv-rl: TRL and a CPU torch (requirements/rl.txt); GRPO, DPO, KTO, the tiny model
#   make env-inspect      .venv-inspect: inspect-ai and the openai client (requirements/inspect.txt,
#                         Python 3.11 or later); the environment's inspect tasks
#   make env-verifiers    .venv-verifiers: verifiers and uv (requirements/verifiers.txt; Python 3.11 or
#                         later as $(PYTHON)); the verifiers taskset (unified_dialogue.integrations.verifiers)
#   make env-serve        .venv-serve: `transformers serve` (transformers' serving extra) and a CPU torch
#                         (requirements/serve.txt), TRL's chat templates as files; the tool model served
# The test targets are not part of `make test`.
VENVH ?= .venv-harness
VENVHF ?= .venv-harness-hf
VENVRL ?= .venv-rl
VENVVF ?= .venv-verifiers
VENVSERVE ?= .venv-serve
.PHONY: env-harness env-harness-hf env-rl env-verifiers env-serve test-harness test-harness-hf test-rl test-verifiers \
	test-serve

env-harness: $(VENVH)/.installed
env-harness-hf: $(VENVHF)/.installed
env-rl: $(VENVRL)/.installed
env-verifiers: $(VENVVF)/.installed
env-serve: $(VENVSERVE)/.installed

$(VENVH)/.installed: setup.cfg pyproject.toml requirements/harness.txt
	$(PYTHON) -m venv $(VENVH)
	$(VENVH)/bin/python -m pip install -q -r requirements/harness.txt -e .
	touch $@

$(VENVHF)/.installed: setup.cfg pyproject.toml requirements/harness.txt requirements/harness-hf.txt \
		requirements/templates.txt
	$(PYTHON) -m venv $(VENVHF)
	$(VENVHF)/bin/python -m pip install -q -r requirements/harness-hf.txt -e .
	$(VENVHF)/bin/python -m pip install -q --no-deps -r requirements/templates.txt
	touch $@

$(VENVRL)/.installed: setup.cfg pyproject.toml requirements/rl.txt requirements/datasets5.txt
	$(PYTHON) -m venv $(VENVRL)
	$(VENVRL)/bin/python -m pip install -q -r requirements/rl.txt -e .
	touch $@

$(VENVVF)/.installed: setup.cfg pyproject.toml requirements/verifiers.txt requirements/datasets5.txt
	$(PYTHON) -m venv $(VENVVF)
	$(VENVVF)/bin/python -m pip install -q -r requirements/verifiers.txt -e .
	touch $@

$(VENVSERVE)/.installed: setup.cfg pyproject.toml requirements/serve.txt requirements/datasets5.txt \
		requirements/templates.txt
	$(PYTHON) -m venv $(VENVSERVE)
	$(VENVSERVE)/bin/python -m pip install -q -r requirements/serve.txt -e .
	$(VENVSERVE)/bin/python -m pip install -q --no-deps -r requirements/templates.txt
	touch $@

# The harness tests: lm-eval's numbers against the scoring command's (a --limit run's too),
# the run's metadata checked, a reasoning model's answers, the stand-in server with lm-eval's
# server backends and the OpenAI client, the docs' server example, the metadata's "verify": false.
test-harness: env-harness
	$(VENVH)/bin/python -m pytest tests/test_harness*.py tests/test_server.py tests/test_server_clients.py \
		tests/test_docs_examples.py tests/test_partial_copies.py $(PYTEST_ARGS)

# The docs' example of lm-eval's hf backend, on the tiny model.
test-harness-hf: env-harness-hf
	$(VENVHF)/bin/python -m pytest tests/test_docs_examples.py $(PYTEST_ARGS)

# The TRL reward functions in a GRPOTrainer step (docs/rl.md), pickled, a DPOTrainer step on
# FaithDial's preference rows, the tiny model, the docs' and FaithDial card's GRPO, DPO, KTO and
# reward-model examples.
test-rl: env-rl
	$(VENVRL)/bin/python -m pytest tests/test_rewards.py tests/test_rewards_pickle.py tests/test_rewards_trl.py \
		tests/test_preference_trl.py \
		tests/test_tiny_model.py tests/test_docs_examples.py $(PYTEST_ARGS)

VENVI ?= .venv-inspect
.PHONY: env-inspect test-inspect

env-inspect: $(VENVI)/.installed

$(VENVI)/.installed: setup.cfg pyproject.toml requirements/inspect.txt requirements/datasets5.txt
	$(PYTHON) -m venv $(VENVI)
	$(VENVI)/bin/python -m pip install -q -r requirements/inspect.txt -e .
	touch $@

# The inspect tasks: their numbers against the evaluation command's (mockllm, the stand-in
# server through openai-api), the entry point, the mistakes, the docs' inspect example.
test-inspect: env-inspect
	$(VENVI)/bin/python -m pytest tests/test_integrations_inspect*.py tests/test_docs_examples.py $(PYTEST_ARGS)

# The verifiers taskset: its tasks, tools, record and mistakes in process, then vf-eval against the
# stand-in server (the gold agent and an imperfect one, each mode, several rollouts: the evaluation
# command's numbers) and vf-validate; the docs' example. verifiers' tool loop installs its chat
# program's packages from PyPI with uv at the first rollout (cached after).
test-verifiers: env-verifiers
	$(VENVVF)/bin/python -m pytest tests/test_verifiers*.py tests/test_docs_examples.py $(PYTEST_ARGS)

# The evaluation command against `transformers serve` on 127.0.0.1, offline, serving the tool
# model built and trained here (docs/environment.md, "A real server").
test-serve: env-serve
	$(VENVSERVE)/bin/python -m pytest tests/test_environment_serve.py $(PYTEST_ARGS)

# Byte-exact round trip of a local copy, by the corpus's own check: make roundtrip DATA=path/to/sgd
roundtrip: $(VENV)/.installed
	$(VENV)/bin/python -m loaders.$(CORPUS).roundtrip $(DATA)

# Dataset cards, export and publishing (README, "Publishing"). CORPUS: sgd, ... or all.
#   make cards [DATA=../shared/data]   re-render dataset_cards/; with DATA, recompute the statistics
#   make export CORPUS=sgd [EXPORT_ARGS="--data-dir PATH --no-verify"]   writes export/$(CORPUS)
#   make publish CORPUS=sgd REPO=owner/name [PRIVATE=1] [BRANCH=name] [PR=1] [EXPORT_ARGS=...]
CORPUS ?= sgd
EXPORT_ARGS ?=
.PHONY: cards export publish

cards: $(VENV)/.installed
	$(VENV)/bin/python -m unified_dialogue.tools.cards $(if $(DATA),--data $(DATA))

# Export and publish under datasets 5.x: its Json values (tool-call arguments, tool parameters)
# go into the Parquet as objects, which datasets 4.7 and later read back as load() gives them.
export: $(VENV5)/.installed
	$(VENV5)/bin/python -m unified_dialogue.tools.export $(CORPUS) --out export/$(CORPUS) $(EXPORT_ARGS)

publish: $(VENV5)/.installed
	@test -n "$(REPO)" || { echo "make publish: set REPO=owner/name" >&2; exit 2; }
	$(VENV5)/bin/python -m unified_dialogue.tools.publish $(CORPUS) --repo $(REPO) $(if $(PRIVATE),--private) \
		$(if $(BRANCH),--branch $(BRANCH)) $(if $(PR),--create-pr) $(EXPORT_ARGS)

# Build times and peak memory next to parsing the JSON (docs/benchmark.md):
#   make bench [DATA=folder with copies: sgd/, ...] [SCALE=4] [REPEAT=5] [BENCH_ARGS="--corpus sgd"]
SCALE ?= 1
REPEAT ?= 5
.PHONY: bench

bench: $(VENV)/.installed
	$(VENV)/bin/python -m unified_dialogue.tools.bench $(if $(DATA),--data $(DATA)) --scale $(SCALE) \
		--repeat $(REPEAT) $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(VENV5) $(VENVRL) $(VENVH) $(VENVHF) $(VENVI) $(VENVVF) $(VENVSERVE) build *.egg-info
