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
# With `mpirun` installed, `make test` builds the solver with MPI and runs the distributed
# tests (tests/distributed.rs); without it, it says so. `make build` never needs MPI.
# (mpirun alone is not enough: the `mpi` crate needs the headers of libopenmpi-dev.)
HAVE_MPI := $(shell command -v mpirun >/dev/null 2>&1 && printf '\043include <mpi.h>\n' | mpicc -E -x c - >/dev/null 2>&1 && echo yes)
MPI_FEATURES := $(if $(HAVE_MPI),--features "msdem-solver/mpi msdem-e2e/mpi",)

.PHONY: all build pipeline test lint pyenv bench clean-out

all: build

build:
	$(CARGO) build --workspace --release --bins

pipeline: build
	$(TARGET)/release/pipeline pipelines/$(SCENARIO).yaml $(ARGS)

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --release $(MPI_FEATURES) -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --release --quiet $(MPI_FEATURES)

$(PY): tests/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
	touch $(PY)

pyenv: $(PY)

test: lint pyenv
	$(if $(HAVE_MPI),,@echo "SKIPPED: mpirun or the MPI headers not found: the distributed (MPI) tests do not run (apt-get install openmpi-bin libopenmpi-dev libclang-dev)")
	$(CARGO) build --workspace --release --bins $(MPI_FEATURES)
	MSDEM_PYTHON=$(abspath $(PY)) $(CARGO) test --workspace --release $(MPI_FEATURES)

bench:
	$(CARGO) bench --workspace

clean-out:
	rm -rf out
