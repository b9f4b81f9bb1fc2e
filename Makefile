# Two commands a newcomer needs: `make run` and `make test`. Both bootstrap .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DB ?=

.PHONY: run test lint typecheck contracts pytest wheel-check demo lock clean system-deps bench soak

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tracker $(if $(DB),--db $(DB))

demo: $(STAMP)
	$(BIN)/tracker demo

lint: $(STAMP)
	$(BIN)/ruff check tracker tests bench
	$(BIN)/ruff format --check tracker tests bench

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy bench

contracts: $(STAMP)
	$(BIN)/lint-imports

# The service tests run twice: on SQLite, and on a throw-away PostgreSQL cluster that
# tests/pg_cluster.py starts on a free loopback port and removes afterwards.
pytest: $(STAMP)
	$(BIN)/python tests/pg_cluster.py $(BIN)/pytest -q -p no:cacheprovider

# The wheel must carry styles/: build it, install it in a fresh venv outside the checkout, start it.
wheel-check: $(STAMP)
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

test: system-deps lint typecheck contracts pytest wheel-check

# The crash test at length: 5,000 SIGKILLs of a process changing a campaign file (20-40 min).
SOAK_KILLS ?= 5000
soak: $(STAMP)
	TRACKER_CRASH_KILLS=$(SOAK_KILLS) $(BIN)/pytest -q -p no:cacheprovider -s \
		tests/services/test_crash_kill.py

# The benchmark: six speed and memory ratios, written to bench/results.md. A few
# minutes; not part of `make test`, which runs a smoke run of it on tiny campaigns.
# BENCH_ARGS="--profile" shows where the time goes; "--runs 9" steadies the medians.
bench: $(STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# Refresh the lock file after changing dependencies in pyproject.toml.
lock: $(STAMP)
	$(BIN)/pip-compile --quiet --extra dev --strip-extras --no-emit-index-url \
		--no-emit-find-links -o requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) build dist *.egg-info
