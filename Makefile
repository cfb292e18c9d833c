# msdem — multiresolution DEM for triangulated particles.
#   make pipeline SCENARIO=staircase   build release binaries, run pipelines/$(SCENARIO).yaml
#   make test                          fmt + clippy + docs + every test (installs the VTK reader)
#   make bench                         criterion benchmarks
CARGO    ?= cargo
SCENARIO ?= staircase
ARGS     ?=
# Where cargo puts its builds (honours CARGO_TARGET_DIR, as cargo does).
TARGET   := $(or $(CARGO_TARGET_DIR),target)
VENV     := .venv
PY       := $(VENV)/bin/python

.PHONY: all build pipeline test lint pyenv bench clean-out

all: build

build:
	$(CARGO) build --workspace --release --bins

pipeline: build
	$(TARGET)/release/pipeline pipelines/$(SCENARIO).yaml $(ARGS)

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --release -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --release --quiet

$(PY): tests/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
	touch $(PY)

pyenv: $(PY)

test: lint pyenv build
	MSDEM_PYTHON=$(abspath $(PY)) $(CARGO) test --workspace --release

bench:
	$(CARGO) bench --workspace

clean-out:
	rm -rf out
