# Two commands a newcomer needs: `make run` and `make test`. Both bootstrap .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
DB ?=

.PHONY: run test lint typecheck contracts pytest pytest-shuffled wheel-check demo lock clean system-deps bench soak

# `make run` installs what the app needs (requirements.lock); `make test` adds the developer
# tools (requirements-dev.lock: the same pins plus pytest, ruff, mypy and the rest).
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

$(DEV_STAMP): $(STAMP) requirements-dev.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.lock
	touch $(DEV_STAMP)

run: $(STAMP)
	$(BIN)/tracker $(if $(DB),--db $(DB))

demo: $(STAMP)
	$(BIN)/tracker demo

lint: $(DEV_STAMP)
	$(BIN)/ruff check tracker tests bench
	$(BIN)/ruff format --check tracker tests bench

typecheck: $(DEV_STAMP)
	$(BIN)/mypy
	$(BIN)/mypy bench

contracts: $(DEV_STAMP)
	$(BIN)/lint-imports

# The service tests run twice: on SQLite, and on a throw-away PostgreSQL cluster that
# tests/pg_cluster.py starts on a free loopback port and removes afterwards. The suite runs in
# TEST_WORKERS processes (pytest-xdist), each with a cluster of its own.
# The tests marked slow (walks of every screen, the kill soak) start first and each worker takes
# the next test as it frees up (worksteal), so no worker is left running a long one alone. PYTEST_ARGS adds to the command line (`--durations=30`, `-x`).
# Bytecode is kept even where PYTHONDONTWRITEBYTECODE is set: without it every worker, and every
# tracker process a test starts, compiles the sources again and pytest rewrites the asserts of
# every test module again (about 6 s of CPU per worker). It goes to __pycache__, ignored by git.
# TEST_DEPTH scales the generated examples of every property test and the crash test's kills
# (tests/depth.py): 0.5 here keeps the suite within its minutes on two cores, every test still
# run; `make test TEST_DEPTH=1` draws every example the tests declare.
# The tests' files (every tmp_path, the import's scratch databases, the PostgreSQL clusters) go to
# TEST_TMPDIR, /dev/shm where it is a writable folder (a tmpfs in memory): on a disk every commit
# of a test's campaign file waits for its fdatasync (synchronous=FULL; about 4 ms each on this
# machine, thousands in a run) and the kernel's journal costs system CPU. No test can see the
# difference: a power cut is the only thing fsync guards against. Only failed tests' folders
# are kept after the run (a run writes about 1 GB, 50 MB files of junk among them).
# `make pytest TEST_TMPDIR=` runs them on the disk's temporary folder.
TEST_WORKERS ?= 2
TEST_DEPTH ?= 0.5
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm)
PYTEST_ARGS ?=
pytest: $(DEV_STAMP)
	env -u PYTHONDONTWRITEBYTECODE TRACKER_TEST_DEPTH=$(TEST_DEPTH) \
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) \
	TRACKER_TEST_PG_CLUSTERS=$(TEST_WORKERS) $(BIN)/python tests/pg_cluster.py \
		$(BIN)/pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist worksteal \
		$(if $(TEST_TMPDIR),-o tmp_path_retention_policy=failed) $(PYTEST_ARGS)

# The whole suite in a shuffled order, to show no test leans on another's leftovers; the seed is
# printed in the header, and SEED=n repeats an order.
SEED ?= $(shell date +%s)
pytest-shuffled: PYTEST_ARGS += --shuffle $(SEED)
pytest-shuffled: pytest

# The wheel must carry styles/: build it, install it in a fresh venv outside the checkout, start it.
wheel-check: $(DEV_STAMP)
	$(BIN)/python tests/wheel_check.py

# The printing tests render record sheets in Debian's chromium and count pages with pdfinfo;
# the service tests also run on Debian's PostgreSQL server.
system-deps:
	@if [ ! -x /usr/bin/chromium ] || ! command -v pdfinfo >/dev/null 2>&1 \
		|| ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y \
			--no-install-recommends chromium poppler-utils postgresql; \
	fi

# The checks run beside the tests (the tests keep both cores busy for minutes; the checks and the
# wheel are a minute of waiting between them), their output interleaved line by line. Any of
# them failing fails `make test`.
test: system-deps $(DEV_STAMP)
	$(MAKE) --no-print-directory -j5 --output-sync=line lint typecheck contracts pytest wheel-check

# The crash test at length: 5,000 SIGKILLs of a process changing a campaign file (20-40 min).
SOAK_KILLS ?= 5000
soak: $(DEV_STAMP)
	TRACKER_CRASH_KILLS=$(SOAK_KILLS) $(BIN)/pytest -q -p no:cacheprovider -s \
		tests/services/test_crash_kill.py

# The benchmark: six speed and memory ratios, written to bench/results/latest.md (ignored by git). A few
# minutes; not part of `make test`, which runs a smoke run of it on tiny campaigns.
# BENCH_ARGS="--profile" shows where the time goes; "--runs 9" steadies the medians.
bench: $(DEV_STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# Refresh both lock files after changing dependencies in pyproject.toml: the dev lock first (the
# tools and both extras, serve and club), then the runtime lock within its pins (the app alone:
# what `make run` installs), so the two never disagree.
LOCK_FLAGS := --quiet --strip-extras --no-emit-index-url --no-emit-find-links
lock: $(DEV_STAMP)
	$(BIN)/pip-compile $(LOCK_FLAGS) --extra dev --extra serve --extra club -o requirements-dev.lock \
		pyproject.toml
	$(BIN)/pip-compile $(LOCK_FLAGS) -c requirements-dev.lock -o requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) build dist *.egg-info
