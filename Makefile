# The README's commands. Each one installs what it needs: a virtualenv with the package and,
# for browser tests, Debian's chromium, and for the PostgreSQL tests, a running PostgreSQL.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench install chromium xfsprogs postgres clean

$(STAMP): pyproject.toml constraints.txt
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

# One test process per core; the PostgreSQL tests share one of them (tests/conftest.py).
test: $(STAMP) chromium xfsprogs postgres
	$(BIN)/python -m pytest -n auto --dist loadgroup

bench: $(STAMP) chromium postgres
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) *.egg-info
