# Makefile: a thin convenience layer over CMake, for a fresh Debian machine.
# The build itself is CMakeLists.txt; these targets only install what is
# missing, configure, build and run.
#
#   make example  build, then write report.md for the default example (against Megatron-LM's published plan)
#   make test     build normally (build/) and with ASan+UBSan (build-asan/), run every test in both,
#                 then every fuzzer for 15 s, two at a time (build-fuzz/, clang), and valgrind on one
#                 end-to-end plan
#   make fuzz     run each libFuzzer harness for FUZZ_SECONDS (default 60; see docs/robustness.md)
#   make docs     regenerate docs/example-report.md and the worked example in README.md
#   make build    configure and build build/parplan
#   make clean    remove build/, build-asan/ and build-fuzz/
#
# Debian packages are installed only when missing (checked with dpkg-query),
# with sudo unless already root.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
CI_FUZZ_SECONDS ?= 15
CI_FUZZ_JOBS ?= 2
FUZZ_SECONDS ?= 60
JOBS       ?= 2
EXAMPLE    ?= data/examples/gpt3-175b-1024-a100.json
PLAN       ?= data/examples/gpt3-175b-1024-a100.plan.json
REPORT     ?= report.md
PARPLAN     = $(BUILD)/parplan

BUILD_PACKAGES := build-essential cmake pkg-config libglpk-dev glpk-utils libnlopt-dev libcjson-dev libcunit1-dev
TEST_PACKAGES  := $(BUILD_PACKAGES) coinor-cbc clang libclang-rt-14-dev valgrind

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build example test test-build test-asan test-fuzz test-valgrind fuzz fuzz-build docs calibration deps \
        deps-test clean

all: build

# $(call install_missing,PACKAGES): apt-get install those not yet installed.
define install_missing
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "not a Debian system: make sure these are installed: $(1)"; exit 0; fi; \
	missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_PACKAGES))

deps-test:
	$(call install_missing,$(TEST_PACKAGES))

build: deps
	cmake -S . -B $(BUILD)
	cmake --build $(BUILD) -j$(JOBS)

# The main job: the optimal plan of the default example, with its proof.
example: build
	$(PARPLAN) plan $(EXAMPLE) --top 5 --baseline $(PLAN) -o $(REPORT)
	@echo "report written to $(CURDIR)/$(REPORT)"

test: deps-test
	$(MAKE) test-build
	$(MAKE) test-asan
	$(MAKE) test-fuzz
	$(MAKE) test-valgrind

test-build:
	cmake -S . -B $(BUILD) -DPARPLAN_WERROR=ON
	cmake --build $(BUILD) -j$(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DPARPLAN_SANITIZE=ON -DPARPLAN_WERROR=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j$(JOBS)

# libFuzzer harnesses (clang): each runs for a bounded time from the seed
# corpus and every saved crash (tests/fuzz/); a new crash fails the target.
fuzz-build:
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DPARPLAN_FUZZ=ON -DPARPLAN_TESTS=ON -DPARPLAN_WERROR=ON
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzzers

test-fuzz: fuzz-build
	FUZZ_SECONDS=$(CI_FUZZ_SECONDS) FUZZ_JOBS=$(CI_FUZZ_JOBS) cmake --build $(FUZZ_BUILD) --target fuzz-run

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) cmake --build $(FUZZ_BUILD) --target fuzz-run

# One end-to-end plan (report, JSON, exported model, runner-ups) under
# valgrind's memcheck: any memory error or definite leak fails it.
test-valgrind:
	cmake -S . -B $(BUILD)
	cmake --build $(BUILD) -j$(JOBS) --target parplan
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	  $(PARPLAN) plan $(EXAMPLE) --top 2 -o $(BUILD)/valgrind-report.md --json $(BUILD)/valgrind-result.json \
	  --export-lp $(BUILD)/valgrind-model.lp

# Splice the worked example's report into README.md between its markers,
# headings demoted so they nest under "## Worked example".
docs: build
	$(PARPLAN) plan $(EXAMPLE) --top 5 --baseline $(PLAN) -o docs/example-report.md
	$(PARPLAN) eval $(EXAMPLE) --plan $(PLAN) -o $(BUILD)/worked-example.md
	sed 's/^#/###/' $(BUILD)/worked-example.md > $(BUILD)/worked-example.demoted.md
	awk -v f=$(BUILD)/worked-example.demoted.md \
	  '/<!-- worked-example:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next } \
	   /<!-- worked-example:end -->/ { skip = 0 } \
	   !skip { print }' README.md > README.md.tmp
	mv README.md.tmp README.md

# Refit the efficiency parameters from every measurement file of the project (within their
# physical bounds) and rewrite the generated part of docs/calibration.md: the cross-validated
# table and the fitted parameters beside their bounds (between the calibration markers).
CALIBRATION ?= data/measurements
VALIDATION ?= data/validation
calibration: build
	$(PARPLAN) calibrate $(CALIBRATION) --no-prior --cv -o data/efficiency.json
	$(PARPLAN) accuracy $(CALIBRATION) --cv -o $(BUILD)/accuracy-cv.md
	sed -e '1,2d' -e 's/^## /### /' $(BUILD)/accuracy-cv.md > $(BUILD)/accuracy-cv.body.md
	awk -v f=$(BUILD)/accuracy-cv.body.md \
	  '/<!-- calibration:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next } \
	   /<!-- calibration:end -->/ { skip = 0 } \
	   !skip { print }' docs/calibration.md > docs/calibration.md.tmp
	mv docs/calibration.md.tmp docs/calibration.md
	$(PARPLAN) accuracy $(VALIDATION) -o $(BUILD)/accuracy-validation.md
	sed -e '1,2d' $(BUILD)/accuracy-validation.md > $(BUILD)/accuracy-validation.body.md
	awk -v f=$(BUILD)/accuracy-validation.body.md \
	  '/<!-- validation:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next } \
	   /<!-- validation:end -->/ { skip = 0 } \
	   !skip { print }' docs/calibration.md > docs/calibration.md.tmp
	mv docs/calibration.md.tmp docs/calibration.md

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
