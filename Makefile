# The two quickstart commands, wrapping CMake:
#   make run    install missing packages, build, start the daemon on the
#               embedded default (./var/pascal.db + the bundled calibration)
#   make test   install missing packages, build normally and with
#               ASan+UBSan, run the whole suite under ctest in both builds,
#               then fuzz each tests/fuzz harness for 10 s (clang build)
#   make fuzz   the same harnesses for FUZZ_SECONDS (600) each
# Everything else is plain CMake: see README.md.

JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
BUILD  ?= build
SANBUILD ?= build-sanitize
FUZZBUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS = fuzz_bundle fuzz_plan fuzz_predict_body fuzz_predict_query fuzz_jobs fuzz_config
CMAKE_FLAGS ?=

.PHONY: run test deps build build-sanitize build-fuzz fuzz clean

deps:
	@sh deploy/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) --log-level=NOTICE -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	@cmake --build $(BUILD) -j $(JOBS)

build-sanitize: deps
	@cmake -S . -B $(SANBUILD) --log-level=NOTICE -DCMAKE_BUILD_TYPE=Debug -DPASCAL_SANITIZE=ON \
	       -DPASCAL_WITH_CUDA=OFF $(CMAKE_FLAGS)
	@cmake --build $(SANBUILD) -j $(JOBS)

# libFuzzer harnesses (tests/fuzz): clang, ASan+UBSan, coverage-instrumented.
build-fuzz: deps
	@cmake -S . -B $(FUZZBUILD) --log-level=NOTICE -DCMAKE_BUILD_TYPE=RelWithDebInfo \
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

test: build build-sanitize build-fuzz
	@echo "== tests: normal build =="
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@echo "== tests: ASan+UBSan build =="
	@cd $(SANBUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)
	@echo "== fuzzing: each harness for 10 s =="
	@cd $(FUZZBUILD) && cmake -DPASCAL_FUZZ_SECONDS=10 . >/dev/null && ctest --output-on-failure -L fuzz

clean:
	rm -rf $(BUILD) $(SANBUILD) $(FUZZBUILD)
