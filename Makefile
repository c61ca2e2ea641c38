# The two commands of the README, and what they need. Each sets up the virtual environment on
# first use (and again whenever pyproject.toml changes); later runs start at once.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
READY := $(VENV)/.installed

.PHONY: demo test lint bench neo4j-start neo4j-stop

$(READY): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --editable '.[all,dev]'
	touch $(READY)

demo: $(READY)  ## the main job, on the embedded default store
	$(VENV)/bin/dualmem demo

test: $(READY)  ## the whole test suite, with a real Neo4j built from Maven Central artifacts
	$(VENV)/bin/python -m pytest

lint: $(READY)  ## style and types: ruff, then mypy over dualmem_core and dualmem_pipeline
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: $(READY)
	$(VENV)/bin/python -m benchmarks.store

neo4j-start: $(READY)
	$(VENV)/bin/dualmem neo4j start

neo4j-stop: $(READY)
	$(VENV)/bin/dualmem neo4j stop
