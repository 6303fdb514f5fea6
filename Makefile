# One command per task. `make run` and `make test` are the README's two commands.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck bench bench-cli bench-http bench-alerts bench-outbox bench-batch bench-scale bench-retention profile profile-submit profile-ladder profile-chunk worker openapi migrate clean install mutation fuzz-api \
	chromium screenshots wheel bench-tree test-compiled

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	BJAUDIT_COMPILE=0 $(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## Debian's chromium for the browser tests (tests/browser), driven by Playwright from the dev extras: installed with
## apt (sudo when not root) unless it is there; a failure stops `make install` and `make test`. No browser download.
CHROMIUM := /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT      := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get
$(CHROMIUM):
	@echo "make: $@ is missing; the browser tests need it: $(APT) install -y --no-install-recommends chromium"
	$(APT) install -y --no-install-recommends chromium || { $(APT) update && $(APT) install -y --no-install-recommends chromium; }
	@test -x $@ || { echo "make: $@ is still missing after installing Debian's chromium" >&2; exit 1; }
	@$@ --version

chromium: $(CHROMIUM)

install: $(STAMP) $(CHROMIUM)

## The compiled build (docs/engine.md): a wheel whose engine (app/domain) is compiled by mypyc, built by .venv
## (mypy, without build isolation) into build/wheel and installed in $(RUN_VENV) for `make run`, `make worker` and
## the benchmarks. .venv stays the editable, pure-Python install that the tests and the profiles run.
RUN_VENV  ?= .venv-run
RUN_STAMP := $(RUN_VENV)/.installed
WHEEL_DIR := build/wheel
WHEEL     := $(WHEEL_DIR)/.built
APP_FILES := $(shell find app -type f ! -path '*/__pycache__/*' ! -name '*.so')
export CAN_COMPILE := import pathlib, shutil, sys, sysconfig; cc = (sysconfig.get_config_var("CC") or "cc").split()[0]; \
	sys.exit(not (shutil.which(cc) and pathlib.Path(sysconfig.get_paths()["include"], "Python.h").is_file()))
$(WHEEL): $(STAMP) setup.py pyproject.toml README.md $(APP_FILES)
	rm -f $(WHEEL_DIR)/bjaudit-*.whl
	@if $(PY) -c "$$CAN_COMPILE"; then echo "BJAUDIT_COMPILE=1 $(PY) -m pip wheel ..."; compile=1; else \
	  echo "make: WARNING: no C compiler or Python headers here (apt install gcc python3-dev): the wheel's engine is pure Python, audits about twice as slow"; \
	  compile=0; fi; \
	BJAUDIT_COMPILE=$$compile $(PY) -m pip wheel --quiet --no-build-isolation --no-deps -w $(WHEEL_DIR) .
	touch $@

wheel: $(WHEEL)

$(RUN_STAMP): $(WHEEL)
	test -x $(RUN_VENV)/bin/python || $(PYTHON) -m venv $(RUN_VENV)
	$(RUN_VENV)/bin/python -m pip install --quiet --force-reinstall --no-deps $(WHEEL_DIR)/bjaudit-*.whl
	$(RUN_VENV)/bin/python -m pip install --quiet $(WHEEL_DIR)/bjaudit-*.whl
	touch $@

## Set up and run the service on the embedded default (SQLite under ./var), http://127.0.0.1:8000, with the
## compiled engine ($(RUN_VENV), above)
run: $(RUN_STAMP)
	$(RUN_VENV)/bin/bjaudit serve

## The engine's own tests (tests/rules, property, unit) on the compiled engine, laid over a copy of app/ in
## build/compiled-tree (tests/compiled_build.py); --import-mode=append keeps the pure app/ behind it on sys.path
test-compiled: $(STAMP)
	rm -rf build/compiled-tree
	$(PY) -c "from pathlib import Path; from tests.compiled_build import compiled_tree; compiled_tree(Path('build/compiled-tree'))"
	PYTHONPATH=build/compiled-tree:. $(PY) -P -c "import app.domain as d; print('engine:', d.ENGINE); assert d.ENGINE.startswith('compiled')"
	PYTHONPATH=build/compiled-tree:. $(PY) -P -m pytest -p no:cacheprovider --import-mode=append tests/rules tests/property tests/unit

## Set up and run the whole test suite (PostgreSQL tests need a server; see README)
test: $(STAMP) $(CHROMIUM)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check app tests bench tools
	$(VENV)/bin/ruff format --check app tests bench tools

typecheck: $(STAMP)
	$(VENV)/bin/mypy

## The benchmarks run what `make run` runs, the compiled wheel in $(RUN_VENV), from build/bench: a copy of bench/
## beside tests/ and migrations/ but no app/ (which would come first on sys.path). ENGINE=pure: .venv's pure Python.
ENGINE ?= compiled
ifeq ($(ENGINE),pure)
BENCH_ENV := $(STAMP)
BENCH     := $(PY) -m
else
BENCH_ENV := $(RUN_STAMP) bench-tree
BENCH     := cd build/bench && $(CURDIR)/$(RUN_VENV)/bin/python -m
endif
bench-tree:
	rm -rf build/bench && mkdir -p build/bench && cp -R bench build/bench/
	ln -s $(CURDIR)/tests $(CURDIR)/migrations $(CURDIR)/alembic.ini build/bench/

## Rounds audited per second on one core, against parsing and validating the same rounds
bench: $(BENCH_ENV)
	$(BENCH) bench.audit_throughput

## Where the time of a round goes (cProfile over read + audit + encode): docs/performance.md
profile: $(STAMP)
	$(PY) -m bench.profile_round

## The same with the database, on PostgreSQL (BJAUDIT_TEST_POSTGRES_URL): POST /v1/rounds through the ASGI app, and
## batch chunks (process_chunk); CPU per round, then shares under cProfile (bench/profile_paths.py)
profile-submit: $(STAMP)
	$(PY) -m bench.profile_paths submit

profile-ladder: $(BENCH_ENV)
	$(BENCH) bench.profile_paths ladder

profile-chunk: $(STAMP)
	$(PY) -m bench.profile_paths chunk

## The HTTP service on PostgreSQL under load (concurrency 1, 16, 64), beside a trivial endpoint
## Whole processes of the command line (--version, audit of 1 and of 6,000 rounds) beside `python -c pass`
bench-cli: $(BENCH_ENV)
	$(BENCH) bench.cli_startup

bench-http: $(BENCH_ENV)
	$(BENCH) bench.http_ingest

## Latency to the pit (issue 22): 16 submitters POST rounds with findings to the service on PostgreSQL, one webhook
## subscription to a receiver on the loopback; submit p50/p99 (request to 201) beside 201 to the webhook's arrival
bench-alerts: $(BENCH_ENV)
	$(BENCH) bench.alerts_latency

## The outbox's cost (issue 22): POST /v1/rounds at c=16 with 0 and 3 webhook subscriptions, alternated 5 times:
## the generated rounds as they are (legal: nothing to deliver), then every round with an injected error
bench-outbox: $(BENCH_ENV)
	$(BENCH) bench.http_ingest --concurrency 16 --subscriptions 0 3 --repeat 5 --seconds 3 --faulty 0
	$(BENCH) bench.http_ingest --concurrency 16 --subscriptions 0 3 --repeat 5 --seconds 3 --faulty 1

## Mutation testing of the pure engine against the fast tests (minutes; not part of `make test`): docs/testing.md
mutation: $(STAMP)
	$(PY) -m tools.mutation

## Schemathesis against a live service (SQLite, PostgreSQL) with FUZZ_EXAMPLES cases per operation (make test: 8)
FUZZ_EXAMPLES ?= 200
fuzz-api: $(STAMP)
	BJAUDIT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest tests/integration/test_schemathesis.py

## The README's pictures of the workbench (docs/images/workbench-*.png), from a seeded service in headless Chromium
screenshots: $(STAMP) $(CHROMIUM)
	$(PY) -m tools.screenshots

## Regenerate the committed OpenAPI document (a test fails when the app drifts from it)
openapi: $(STAMP)
	$(PY) -m app.main openapi

## Migrate the configured database (DATABASE_URL, else the SQLite default) to head
migrate: $(STAMP)
	$(VENV)/bin/alembic upgrade head

## Batch ingest benchmark on PostgreSQL (BJAUDIT_TEST_POSTGRES_URL): 200k rounds end to end vs raw COPY
bench-batch: $(BENCH_ENV)
	$(BENCH) bench.batch_ingest --rounds 200000

## The scale benchmark (issue 21) on PostgreSQL (BJAUDIT_TEST_POSTGRES_URL): ROUNDS generated rounds of four casinos
## stored through the batch path into the database bjaudit_scale_<ROUNDS> (kept; REUSE=1 keeps a loaded one), then
## p50/p95 of every search, report, lookup, workbench page and a re-audit through the API. ONLY=regex: a subset
ROUNDS ?= 1000000
SCALE_ARGS := --rounds $(ROUNDS) $(if $(filter 1,$(REUSE)),--reuse) $(if $(ONLY),--only '$(ONLY)') $(if $(JSON),--json $(abspath $(JSON)))
bench-scale: $(BENCH_ENV)
	$(BENCH) bench.scale $(SCALE_ARGS)

## Archive and restore the fullest month of bjaudit_scale_$(ROUNDS) (on a copy), beside a raw COPY of its rounds
bench-retention: $(BENCH_ENV)
	$(BENCH) bench.retention --rounds $(ROUNDS)

## A batch worker (PostgreSQL job queue; DATABASE_URL); run one per core
worker: $(RUN_STAMP)
	$(RUN_VENV)/bin/bjaudit worker

clean:
	rm -rf $(VENV) $(RUN_VENV) build var .pytest_cache mutants
