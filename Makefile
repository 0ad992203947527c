# tcplab: the two entry points of the README, and their parts.
#   make run   — set everything up, then reproduce every paper's tables and figures into report/
#   make test  — set everything up, then run every test (Rust and Python)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-stamp
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: run test setup build rust-test py-test bench fuzz clean

run: build
	$(BIN)/tcplab reproduce

# The Rust and Python suites run side by side (one job each, output kept per suite): pytest spends
# much of its time in tshark, ns, Ray and subprocess start-up, which leaves a core to cargo.
test: build tshark ns2 chromium
	$(MAKE) --no-print-directory -j2 --output-sync=target rust-test py-test

# Python environment with the runtime, test and Ray dependencies (Ray is an optional extra for
# users; the tests exercise it on a local instance).
setup: $(STAMP)
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check --upgrade pip
	$(BIN)/pip install -q --disable-pip-version-check "maturin>=1.5,<2" "polars>=1.0" "matplotlib>=3.7" "rich>=13" \
		"pytest>=7" "pytest-xdist>=3.5" "pyarrow>=14" "ray>=2.9" "numpy>=1.24" "selenium>=4.11"
	touch $(STAMP)

# The Rust core and the _core extension, release-optimised, installed into the venv; and the
# link emulator of `tcplab validate linux` (target/release/tcplab-emu).
build: setup
	$(BIN)/maturin develop --release --quiet
	cargo build --release --quiet -p tcplab-emu

# tshark checks the pcaps we write; Debian's package, installed when missing.
.PHONY: tshark
tshark:
	@command -v tshark >/dev/null 2>&1 || { \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; }

# ns-2.35 (`ns`) is the reference `tcplab validate ns2` runs; Debian's package, installed when missing.
.PHONY: ns2
ns2:
	@command -v ns >/dev/null 2>&1 || { \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2 >/dev/null; }

# Chromium and its WebDriver open the run viewer's pages in tests/test_viewer.py; Debian's
# packages, installed when missing (Selenium drives them; it comes with `setup`).
.PHONY: chromium
chromium:
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

rust-test:
	cargo fmt --all -- --check
	cargo clippy --release --workspace --all-targets --quiet -- -D warnings
	cargo test --release --workspace --exclude tcplab-py

# PYTEST_WORKERS=2 runs the Python tests on two pytest-xdist workers, one file per work unit, the
# longest files first (opt-in; tests/conftest.py says why it is not the default yet).
PYTEST_WORKERS ?= 0
py-test:
	$(BIN)/python -m pytest tests $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder)

bench:
	cargo bench -p tcplab-core --bench core

# Whole-process speed against the peer simulators (issue 35; not part of make test): ns-2.35
# (Debian's ns2, installed when missing) on every network of benches/peers/run_ns2.py, and ns-3
# 3.44 when NS3_PYTHON names the interpreter of a throw-away virtualenv with ns3==3.44.post0.
# Writes medians, ratios and peak memory into docs/validation/performance.md.
PAIRS ?= 5
NS3_PYTHON ?=
.PHONY: bench-peers
bench-peers: build
	@command -v ns >/dev/null 2>&1 || { \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2 >/dev/null; }
	$(BIN)/python benches/peers/run_ns2.py --pairs $(PAIRS)
	@if [ -n "$(NS3_PYTHON)" ]; then \
		$(BIN)/python benches/peers/run_ns3.py --python $(NS3_PYTHON) --pairs $(PAIRS); \
	else echo "bench-peers: NS3_PYTHON not set, ns-3 skipped (see benches/peers/run_ns3.py)"; fi

# The scenario front door under 1 million fuzzed inputs (make test runs 20 000 of them);
# FUZZ_SEED picks another input stream. See docs/validation/fuzzing.md.
FUZZ_INPUTS ?= 1000000
FUZZ_SEED ?= 2026
fuzz:
	TCPLAB_FUZZ_INPUTS=$(FUZZ_INPUTS) TCPLAB_FUZZ_SEED=$(FUZZ_SEED) \
		cargo test --release -p tcplab-core --test integration fuzz_scenarios:: -- --nocapture

clean:
	rm -rf target $(VENV) report results

# Mutation testing of the protocol core with cargo-mutants (`cargo install cargo-mutants --locked`).
# Neither target is part of `make test`. Mutants build in release without LTO, incrementally and
# at opt-level 1 (a mutant's rebuild takes ~5 s instead of ~20 s at opt-level 3, and the library
# tests still run in about a second); -j 1 keeps to one build at a time on a shared machine.
#   make mutants        — every module below (hours); the per-module table of
#                         docs/validation/mutants.md is rewritten from the outcomes
#   make mutants-diff   — only the mutants in code changed since the branch left $(MUTANTS_BASE)
#                         (work tree included), to run before landing; fails if one is missed
MUTANTS_MODULES ?= tcp wifi agents link sim
MUTANTS_BASE ?= main
MUTANTS := CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_INCREMENTAL=true \
	CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
	cargo mutants -p tcplab-core --profile release \
	-j 1 --copy-target=true \
	$(foreach m,$(MUTANTS_MODULES),-f 'crates/tcplab-core/src/$(m)/**')

.PHONY: mutants mutants-diff
# cargo-mutants exits 2 when a mutant is missed and 3 on a timeout: the table reports both.
mutants:
	$(MUTANTS) -o target/mutants-full; rc=$$?; test $$rc = 0 -o $$rc = 2 -o $$rc = 3
	$(PYTHON) docs/validation/mutants_table.py target/mutants-full/mutants.out/outcomes.json \
		docs/validation/mutants.md

mutants-diff:
	mkdir -p target
	git diff $$(git merge-base $(MUTANTS_BASE) HEAD) > target/mutants.diff
	$(MUTANTS) --in-diff target/mutants.diff -o target/mutants-diff
