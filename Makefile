# sealvol: the two commands a new user needs are `make demo` and `make test`.
# Both install what they need (Debian packages via scripts/install-deps.sh).
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
DEMO_DIR ?= demo-work

.PHONY: all build demo test test-asan fuzz bench install format clean deps

all: build

deps:
	scripts/install-deps.sh build

$(BUILD)/build.ninja:
	scripts/install-deps.sh test
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	DEMO_DIR=$(DEMO_DIR) scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	scripts/install-deps.sh test
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DSEALVOL_SANITIZE=ON -DSEALVOL_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (clang); FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	scripts/install-deps.sh build fuzz
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSEALVOL_FUZZ=ON \
	  -DSEALVOL_TESTS=OFF -DSEALVOL_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS) --target manifest_fuzz chunk_index_fuzz envelope_fuzz ref_fuzz \
	  tokens_fuzz api_request_fuzz deploy_spec_fuzz s3_list_fuzz source_uri_fuzz aws_ini_fuzz \
	  hf_tree_fuzz azure_list_fuzz gcs_list_fuzz
	for t in manifest chunk_index envelope ref tokens api_request deploy_spec s3_list \
	    source_uri aws_ini hf_tree azure_list gcs_list; do \
	  mkdir -p build-fuzz/corpus/$$t && \
	  build-fuzz/fuzz/$${t}_fuzz -max_total_time=$(FUZZ_SECONDS) \
	    build-fuzz/corpus/$$t fuzz/corpus/$$t || exit 1; \
	done

bench:
	scripts/install-deps.sh bench
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)
	bench/run.sh $(BUILD)
	bench/mount.sh $(BUILD)
	bench/remote.sh $(BUILD)
	bench/deploy.sh $(BUILD)
	bench/sync.sh $(BUILD)
	bench/scale_out.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
