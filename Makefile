# The two quickstart commands, wrapping CMake:
#   make run    install missing packages, build, start the daemon on the
#               embedded default (./var/pascal.db + the bundled calibration)
#   make test   install missing packages, build normally, with ASan+UBSan
#               and for fuzzing (clang), run the whole suite under ctest in
#               the first two and fuzz each tests/fuzz harness for 5 s,
#               overlapping the phases (tests/run_suite.sh)
#   make fuzz   the same harnesses for FUZZ_SECONDS (600) each
#   make gpu-bundle   the relocatable GPU-host bundle and its archive in dist/
#               (docs/gpu.md)
# Everything else is plain CMake: see README.md.

JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
BUILD  ?= build
SANBUILD ?= build-sanitize
FUZZBUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS = fuzz_bundle fuzz_plan fuzz_predict_body fuzz_predict_query fuzz_jobs fuzz_config fuzz_jread
CMAKE_FLAGS ?=
# A new build folder is generated for Ninja (install-deps.sh installs it): the
# Makefile generator's own bookkeeping (a sub-make and a dependency scan per
# target, some 200 targets) cost a third of a build's CPU here (normal build
# 172 -> 119 CPU-seconds). A folder already configured keeps its generator.
generator = $(if $(wildcard $(1)/CMakeCache.txt),,$(if $(shell command -v ninja),-G Ninja))

PREFIX ?= /usr/local

.PHONY: run test deps build build-sanitize build-fuzz fuzz install clean gpu-bundle mutation

# DEPS_ARGS: install-deps.sh's options (tests/run_suite.sh: --packages, the
# linter being installed beside the build).
DEPS_ARGS ?=
deps:
	@sh deploy/install-deps.sh $(DEPS_ARGS)

build: deps
	@cmake -S . -B $(BUILD) $(call generator,$(BUILD)) --log-level=NOTICE \
	       -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	@cmake --build $(BUILD) -j $(JOBS)

# Debug (assertions on) at -O1, as AddressSanitizer's authors advise: the
# suite's CPU under the sanitizers halves against -O0 (sim runs, trace
# baselines, daemons importing bundles), with the same checks.
build-sanitize: deps
	@cmake -S . -B $(SANBUILD) $(call generator,$(SANBUILD)) --log-level=NOTICE \
	       -DCMAKE_BUILD_TYPE=Debug -DPASCAL_SANITIZE=ON \
	       "-DCMAKE_C_FLAGS_DEBUG=-g -O1" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" \
	       -DPASCAL_WITH_CUDA=OFF $(CMAKE_FLAGS)
	@cmake --build $(SANBUILD) -j $(JOBS)

# libFuzzer harnesses (tests/fuzz): clang, ASan+UBSan, coverage-instrumented.
build-fuzz: deps
	@cmake -S . -B $(FUZZBUILD) $(call generator,$(FUZZBUILD)) --log-level=NOTICE \
	       -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	       -DCMAKE_C_COMPILER=clang-14 -DPASCAL_FUZZ=ON -DPASCAL_WITH_CUDA=OFF $(CMAKE_FLAGS)
	@cmake --build $(FUZZBUILD) -j $(JOBS) --target $(FUZZ_TARGETS)

# Each harness for FUZZ_SECONDS, one after the other; new inputs and findings
# stay in $(FUZZBUILD)/fuzz/<name>/.
fuzz: build-fuzz
	@cd $(FUZZBUILD) && cmake -DPASCAL_FUZZ_SECONDS=$(FUZZ_SECONDS) . >/dev/null && \
	  ctest --output-on-failure -L fuzz

# Foreground daemon on 127.0.0.1:8080 with ./var/pascal.db; on an empty
# database it imports deploy/calibrations/*.json first. Ctrl-C stops it.
run: build
	@exec $(BUILD)/bin/pascald --listen 127.0.0.1:8080 --db var/pascal.db

# tests/run_suite.sh: the normal build, its tests while the sanitizer and
# fuzz builds compile beside them, then the sanitizer tests while each fuzz
# harness runs for 5 s beside them (docs/testing.md).
test:
	@MAKE="$(MAKE)" JOBS="$(JOBS)" BUILD="$(BUILD)" SANBUILD="$(SANBUILD)" \
	  FUZZBUILD="$(FUZZBUILD)" FUZZ_SECONDS=5 sh tests/run_suite.sh

# deploy/install.sh: its own Release build for PREFIX, cmake --install (programs,
# libpascal, headers, pascal.pc, CMake package, docs), config, units.
# DESTDIR=/stage stages everything for packaging.
install: deps
	@DESTDIR="$(DESTDIR)" sh deploy/install.sh --prefix $(PREFIX)

# Relocatable GPU-host bundle in dist/pascal-gpu-host and its archive
# dist/pascal-gpu-host.tar.gz, the one file a GPU window carries (docs/gpu.md):
# its own Release build with the CUDA toolkit, for GPU_ARCHS (default 90:
# H100/H200; any CMake list, e.g. GPU_ARCHS="90;121"). Installs only the
# packages that build needs (install-deps.sh --bundle).
GPU_ARCHS ?= 90
BUNDLE_BUILD ?= build-gpu-bundle
gpu-bundle:
	@sh deploy/install-deps.sh --bundle
	@cmake -S . -B $(BUNDLE_BUILD) $(call generator,$(BUNDLE_BUILD)) --log-level=NOTICE \
	       -DCMAKE_BUILD_TYPE=Release -DPASCAL_WITH_CUDA=ON \
	       -DPASCAL_CUDA_ARCHITECTURES="$(GPU_ARCHS)" $(CMAKE_FLAGS)
	@cmake --build $(BUNDLE_BUILD) -j $(JOBS) --target gpu-bundle

# Mutation testing (not part of CI; slow): plants each mutant of
# tests/mutation/mutants.py in a scratch copy and runs the suite. Pass options
# with MUTATION_ARGS, e.g. MUTATION_ARGS="--normal-only --only core-gap-wrap".
mutation: deps
	@python3 tests/mutation/run_mutants.py --jobs $(JOBS) $(MUTATION_ARGS)

clean:
	rm -rf $(BUILD) $(SANBUILD) $(FUZZBUILD) $(BUNDLE_BUILD) dist
