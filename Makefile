# The two commands a newcomer needs: `make serve` and `make test`. Both create .venv.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# PORT (or HOST) wins, then ZEROPLAN_PORT (ZEROPLAN_HOST), then the defaults.
HOST ?= $(or $(ZEROPLAN_HOST),127.0.0.1)
PORT ?= $(or $(ZEROPLAN_PORT),8000)

.PHONY: serve test lint openapi bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,sim]'
	touch $(VENV)/.installed $@

serve: $(VENV)/.installed
	$(BIN)/zeroplan serve --host $(HOST) --port $(PORT)

# The web test (tests/web) drives Debian's headless Chromium; installed here only when missing and root.
.PHONY: chromium
chromium:
	@if { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; } && [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; fi

# The job-store tests start a throwaway PostgreSQL cluster (Debian's postgresql); installed here only
# when initdb is missing and root; elsewhere those tests skip and say why.
.PHONY: postgresql
postgresql:
	@if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
		&& [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; fi

# The Slurm integration tests (tests/integrations) start a real single-node Slurm (Debian's slurmctld,
# slurmd, slurm-client and munge); installed here only when missing and root, elsewhere those tests skip.
.PHONY: slurm
slurm:
	@if { [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/slurmd ] || [ ! -x /usr/bin/sbatch ] \
		|| [ ! -x /usr/sbin/munged ]; } && [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y slurmctld slurmd slurm-client munge; fi

# The suite in TEST_WORKERS processes, each test file whole in one of them (its module fixtures, such as the Slurm
# cluster, started once); TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= 2
test: $(VENV)/.installed-dev chromium postgresql slurm
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

# The spec and the Python client generated from it (clients/python), together.
openapi: $(VENV)/.installed-dev
	$(BIN)/python -m api.openapi
	$(BIN)/python clients/generate.py

# The load benchmark (loopback, bounded): SECONDS per run, default 30.
SECONDS ?= 30
bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench.load --seconds $(SECONDS)

clean:
	rm -rf $(VENV) build *.egg-info
