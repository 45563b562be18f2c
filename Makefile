# The two quickstart commands are `make run` and `make test`; both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
LINTED = adjudicator tests bench

.PHONY: setup run test test-fast lint typecheck bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

setup: $(BIN)/.installed

run: setup
	$(BIN)/adjudicate demo

lint: setup
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

typecheck: setup
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

# The fast tier, for the change at hand: leaves out the end-to-end tests (tests/e2e/) and the
# slow ones (real servers, processes, a browser; tests/tiers.py marks them). `make test`
# runs everything.
test-fast: setup
	$(BIN)/pytest -m "not slow and not e2e"

bench: setup
	for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) data build *.egg-info .mypy_cache .ruff_cache .pytest_cache
