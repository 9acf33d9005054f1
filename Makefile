# The README's commands. Each one installs what it needs: a virtualenv with the package and,
# for browser tests, Debian's chromium, and for the PostgreSQL tests, a running PostgreSQL.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test check soundness bench install chromium xfsprogs postgres clean

$(STAMP): pyproject.toml setup.py constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

# mkfs.xfs, for the tests of resets by reflink on an XFS image (they are skipped without it).
xfsprogs:
	@command -v mkfs.xfs >/dev/null 2>&1 || { \
	  echo "installing Debian's xfsprogs"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q xfsprogs || \
	  { $$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q xfsprogs; }; }

# The PostgreSQL backend's tests need the server on 127.0.0.1:5432: started (or installed) if down.
postgres:
	@scripts/ensure-postgres

run: $(STAMP)
	$(BIN)/officegym serve

# One test process per core, and one more for the PostgreSQL tests, which run in one process
# (tests/conftest.py) and mostly wait on the server.
WORKERS := $(shell echo $$(( $$(nproc) + 1 )))
test: $(STAMP) chromium xfsprogs postgres
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadgroup

# The quick suite for the edit-and-test loop (a few minutes, nothing to install beyond .venv): the
# services, graders and MCP tools of every app and the UI's pages through Flask's client, on SQLite;
# no browser, no PostgreSQL, no task soundness (make test runs everything).
check: $(STAMP)
	OFFICEGYM_TEST_BACKENDS=sqlite $(BIN)/python -m pytest -n auto --dist loadgroup -m "not e2e" \
	  tests/apps tests/graders tests/mcp_wrappers

# Every adversarial agent and near miss on every template (make test plays a few on each, in turn): after changing
# a grader, an agent or the way a template declares its work.
soundness: $(STAMP)
	OFFICEGYM_TEST_EVERY_PAIR=1 $(BIN)/python -m pytest -n auto --dist loadgroup tests/tasks/test_soundness.py \
	  tests/tasks/test_judgement.py tests/tasks/test_procedures.py

bench: $(STAMP) chromium postgres
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) *.egg-info
