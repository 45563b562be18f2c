# The two quickstart commands are `make run` and `make test`; both set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
LINTED = adjudicator tests bench

.PHONY: setup run test lint typecheck bench clean

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

bench: setup
	for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) data build *.egg-info .mypy_cache .ruff_cache .pytest_cache
