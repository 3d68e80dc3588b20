# Clarify: `make run` starts the app on the bundled default domain, `make test` runs the tests (`make test-fast`
# the quick ones), `make bench` runs the benchmarks. Each creates .venv and installs on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
DOMAIN ?= faq
# pip's ninja lands in the venv's bin/; sru's C++ op needs it on PATH when it compiles.
export PATH := $(BIN):$(PATH)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# numpy's and scipy's OpenBLAS pools fight on two cores; let idle threads sleep quickly.
export OPENBLAS_THREAD_TIMEOUT := 4

.PHONY: run test bench soak lint format install clean release-models release-check

install: $(STAMP)

# torch is installed first and pinned exactly so that pip takes the local CPU wheel. sru's C++ op is
# compiled here, once, into the venv (models/sru_loader.py); if it cannot be, Clarify runs without it.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test,dev]'
	$(BIN)/python -m models.sru_loader --build
	touch $(STAMP)

# Without a display clarify-gui explains the terminal mode and exits with 2: that is not a failure here.
run: $(STAMP)
	$(BIN)/clarify prepare $(DOMAIN)
	$(BIN)/clarify-gui --domain $(DOMAIN) || test $$? -eq 2

# The models shipped in assistant/release/ (a first launch installs them instead of training): every bundled
# domain trained end to end from fixed seeds in a fresh temporary home, limited by steps (never by time) and
# with fixed thread counts, so that the same code gives the same weights on any machine with the same package
# versions. Run it after changing a model's settings or a domain's data, and commit what it writes.
# `make release-check` builds them again into a temporary folder and compares their weights with the shipped ones.
RELEASE_DOMAINS ?= faq banking birds clinc
release-models: $(STAMP)
	home=$$(mktemp -d) && CLARIFY_HOME=$$home $(BIN)/clarify domain release-models $(RELEASE_DOMAINS); \
	status=$$?; rm -rf "$$home"; exit $$status

release-check: $(STAMP)
	home=$$(mktemp -d) && CLARIFY_HOME=$$home $(BIN)/clarify domain release-models $(RELEASE_DOMAINS) \
	--into "$$home/release" --compare-with assistant/release; status=$$?; rm -rf "$$home"; exit $$status

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider --durations=15

# `make test`: every test (GUI offscreen, slow ones, the doctests: tests/architecture/test_doctests.py), the 15
# slowest named. `make test-fast`: the quick loop while editing, no GUI and nothing marked slow (tests/README.md).
.PHONY: test-fast
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow and not gui" --durations=10

# Every benchmark's tables and figures in bench-results/report.md (models are trained once into bench-results/home).
bench: $(STAMP)
	CLARIFY_HOME=$${CLARIFY_HOME:-$(CURDIR)/bench-results/home} $(BIN)/clarify bench run --out bench-results

# The reliability probe at full size (issue 12): 1,500 damaged import files, 100 kill -9 of `clarify ask`, a
# second writer, damaged models and knowledge bases, bad arguments. Kills need DOMAIN trained in CLARIFY_HOME.
# Then the checkpoint reader's fuzz test at full size (issue 41; `make test` runs it with 80 examples).
FUZZ_EXAMPLES ?= 20000
soak: $(STAMP)
	$(BIN)/python -m benchmarks.bench_reliability --domain $(DOMAIN)
	CLARIFY_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q -p no:cacheprovider \
	tests/models/test_state_arrays_fuzz.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
