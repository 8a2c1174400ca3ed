# The two quickstart commands, wrapping CMake:
#   make run    install missing packages, build, start the daemon on the
#               embedded default (./var/pascal.db + the bundled calibration)
#   make test   install missing packages, build normally and with
#               ASan+UBSan, run the whole suite under ctest in both builds
# Everything else is plain CMake: see README.md.

JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
BUILD  ?= build
SANBUILD ?= build-sanitize
CMAKE_FLAGS ?=

.PHONY: run test deps build build-sanitize clean mutation

deps:
	@sh deploy/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) --log-level=NOTICE -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	@cmake --build $(BUILD) -j $(JOBS)

build-sanitize: deps
	@cmake -S . -B $(SANBUILD) --log-level=NOTICE -DCMAKE_BUILD_TYPE=Debug -DPASCAL_SANITIZE=ON \
	       -DPASCAL_WITH_CUDA=OFF $(CMAKE_FLAGS)
	@cmake --build $(SANBUILD) -j $(JOBS)

# Foreground daemon on 127.0.0.1:8080 with ./var/pascal.db; on an empty
# database it imports deploy/calibrations/*.json first. Ctrl-C stops it.
run: build
	@exec $(BUILD)/bin/pascald --listen 127.0.0.1:8080 --db var/pascal.db

test: build build-sanitize
	@echo "== tests: normal build =="
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@echo "== tests: ASan+UBSan build =="
	@cd $(SANBUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

# Mutation testing (not part of CI; slow): plants each mutant of
# tests/mutation/mutants.py in a scratch copy and runs the suite. Pass options
# with MUTATION_ARGS, e.g. MUTATION_ARGS="--normal-only --only core-gap-wrap".
mutation: deps
	@python3 tests/mutation/run_mutants.py --jobs $(JOBS) $(MUTATION_ARGS)

clean:
	rm -rf $(BUILD) $(SANBUILD)
