# Two commands do all the set-up on a fresh machine:
#   make demo   system packages + venv + install, then ingest the example PDFs and ask a question
#   make test   the test suite (installs first when needed); make test-fast leaves out tests marked slow
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DIR ?= .demo
QUESTION ?= What was China's silicon carbide production capacity in 2010?

.PHONY: install demo test test-fast lint bench clean

$(BIN)/docrag: setup.cfg constraints.txt pyproject.toml
	./scripts/install-system-deps.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -e ".[dev]" -c constraints.txt
	touch $(BIN)/docrag

install: $(BIN)/docrag

demo: install
	$(BIN)/docrag ingest examples/pdfs --out $(DEMO_DIR)/corpus
	$(BIN)/docrag corpus info $(DEMO_DIR)/corpus
	$(BIN)/docrag ask $(DEMO_DIR)/corpus "$(QUESTION)"

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider

test-fast: install
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow"

lint: install
	$(BIN)/ruff check .

bench: install
	$(BIN)/python benchmarks/ingest.py
	$(BIN)/python benchmarks/search.py
	$(BIN)/python benchmarks/scale.py

clean:
	rm -rf $(DEMO_DIR) .pytest_cache
