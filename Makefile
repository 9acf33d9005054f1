# The README's commands. Each one installs what it needs: a virtualenv with the package and,
# for browser tests, Debian's chromium, and for the PostgreSQL tests, a running PostgreSQL.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench install chromium postgres clean

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

# The PostgreSQL backend's tests need the server on 127.0.0.1:5432: started (or installed) if down.
postgres:
	@scripts/ensure-postgres

run: $(STAMP)
	$(BIN)/officegym serve

test: $(STAMP) chromium postgres
	$(BIN)/python -m pytest

bench: $(STAMP) postgres
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) *.egg-info
