# Two commands do everything on a fresh machine:
#   make run    set up .venv (if missing; the training extras only), compile every part ahead
#               (concordia warmup: minutes on a fresh machine, seconds after) and run the main job
#   make test   set up .venv (if missing; every extra) and run what CI runs: ruff, mypy, the
#               wheel installed alone into a fresh venv elsewhere (.ci/wheel_check.py; its build,
#               beside the setup, compiles the package into concordia_env/_compiled, which the
#               tests then load),
#               concordia warmup (nothing left to compile), and the test suite beside the
#               wheel's fresh venv
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# what `make run` needs: the core and the train extra (faster to install than everything)
STAMP_RUN := $(VENV)/.installed-run
# torch first, pinned to a CPU wheel, so that stable-baselines3 does not pull a CUDA build.
# Elsewhere: make run TORCH="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
TORCH  ?= torch==2.13.0

.PHONY: run test lint typecheck wheel-check bench warmup setup clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP) $(STAMP_RUN)

$(STAMP_RUN): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e ".[train]"
	touch $(STAMP_RUN)

run: $(STAMP_RUN)
	$(VENV)/bin/concordia warmup
	$(VENV)/bin/concordia train expert --config expert_quick

# the wheel check in two halves: its build compiles the package (minutes; one core while it compiles the
# rules and the strategy core) and needs nothing of .venv (pip builds it in an isolated environment), so it
# starts at once, from a small venv of its own, beside the setup of .venv and then ruff and mypy; the tests
# load what it compiled, and run beside the rest of the check (the wheel in a fresh venv elsewhere), whose
# output follows theirs
WHEEL_DIR := build/wheel-check
BUILD_VENV := build/wheel-build-venv
test:
	test -x $(BUILD_VENV)/bin/python || $(PYTHON) -m venv $(BUILD_VENV)
	$(BUILD_VENV)/bin/python .ci/wheel_check.py --build $(WHEEL_DIR) & built=$$!; \
	  $(MAKE) --no-print-directory setup && $(PY) -m ruff check . && $(PY) -m ruff format --check . \
	  && $(PY) -m mypy; lint=$$?; wait $$built; checked=$$?; test $$lint -eq 0 && test $$checked -eq 0
	$(PY) .ci/wheel_check.py --install $(WHEEL_DIR) > $(WHEEL_DIR).log 2>&1 & installed=$$!; \
	  $(VENV)/bin/concordia warmup && $(PY) -m pytest -n 2 --dist worksteal -q --durations=15; tests=$$?; \
	  wait $$installed; checked=$$?; cat $(WHEEL_DIR).log; test $$tests -eq 0 && test $$checked -eq 0

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: $(STAMP)
	$(PY) -m mypy

wheel-check: $(STAMP)
	$(PY) .ci/wheel_check.py

warmup: $(STAMP_RUN)
	$(VENV)/bin/concordia warmup

bench: $(STAMP)
	$(VENV)/bin/concordia bench throughput

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache
