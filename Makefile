# embpriv: the two entry points of README.md, plus build and bench.
#   make demo   installs what is missing, builds, runs the theory checks at d = 4096, a paper
#               sweep, KNN inversion of GloVe word embeddings of real sentences, ObfusLM
#               on the stories260K language model, ObfusLM's classification task on a
#               random-init BERT trained here on the sentiment sentences, the inversion table
#               on stories260K converted to a Hugging Face folder (by the build:
#               build/stories260K-hf), and PrivateAI on real e-mails
#   make test   installs what is missing, builds, runs every test (ctest)
#   make test-torch2   the second test leg, on the CPU against LibTorch 2.6: build, Catch2 tests,
#               pip install and tests/python in a Debian 13 chroot (scripts/torch2/test_torch2.sh;
#               root; TORCH2_FLAGS=--build-only for the build and the C++ tests only)
#   make sanitize   the tests of core, mechanisms, data and metrics under ASan + UBSan (g++)
#   make fuzz       every libFuzzer target of fuzz/ for FUZZ_SECONDS each (clang; --fuzz set-up)
BUILD ?= build
JOBS ?= $(shell nproc)

FUZZ_SECONDS ?= 60
# The clang of `make fuzz`: the first of clang, clang-19 ... clang-14 on PATH (scripts/setup.sh
# --fuzz installs clang-14); FUZZ_CC=/path/to/clang-N overrides it, and clang++-N goes with it.
FUZZ_CC ?= $(firstword $(foreach c,clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14,$(shell command -v $(c))))
FUZZ_CXX ?= $(patsubst ./%,%,$(dir $(FUZZ_CC))$(subst clang,clang++,$(notdir $(FUZZ_CC))))
# LibTorch's and OpenBLAS's allocations live until exit (caches, thread pools): LeakSanitizer
# would report them, and they are not embpriv's; every other ASan check stays on.
SANITIZER_OPTIONS = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: setup build demo test test-torch2 bench sanitize fuzz clean

setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DEMBPRIV_TESTS=ON -DEMBPRIV_BENCH=ON > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/embpriv bounds --dim 4096
	$(BUILD)/embpriv run configs/paper/mechanisms_vs_epsilon.yaml --overwrite
	$(BUILD)/embpriv run configs/inversion_glove.yaml --overwrite
	$(BUILD)/embpriv run configs/obfuslm_stories260k.yaml --overwrite
	$(BUILD)/embpriv run configs/obfuslm_classification_demo.yaml --overwrite
	$(BUILD)/embpriv run configs/inversion_stories260k_hf.yaml --overwrite data.model=$(BUILD)/stories260K-hf
	$(BUILD)/embpriv run configs/privateai_demo.yaml --overwrite

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 900

# The chroot lives in /var/cache/embpriv/trixie (EMBPRIV_TORCH2_ROOT), outside the checkout, with
# its own ccache: made once (debootstrap), then only what changed is compiled.
TORCH2_FLAGS ?=
test-torch2: setup
	$(if $(filter 0,$(shell id -u)),,sudo) bash scripts/torch2/test_torch2.sh --jobs $(JOBS) $(TORCH2_FLAGS)

# Every benchmark against its peer on the same BLAS kernel, then one table (bench/README.md);
# BENCH_SIZE=full for the full sizes.
bench: build
	@bash scripts/setup.sh --bench
	BUILD_DIR=$(BUILD) bash bench/run_all.sh

sanitize: setup
	@cmake -S . -B $(BUILD)-sanitize -DCMAKE_BUILD_TYPE=Release -DEMBPRIV_SANITIZE=ON > $(BUILD)-sanitize.configure.log 2>&1 || (cat $(BUILD)-sanitize.configure.log; exit 1)
	@cmake --build $(BUILD)-sanitize -j$(JOBS) --target embpriv_sanitize_tests
	$(SANITIZER_OPTIONS) $(BUILD)-sanitize/embpriv_sanitize_tests

fuzz:
	@bash scripts/setup.sh --fuzz
	@test -n "$(FUZZ_CC)" || { echo "fuzz: no clang on PATH (bash scripts/setup.sh --fuzz, or FUZZ_CC=/path/to/clang)"; exit 1; }
	@cmake -S . -B $(BUILD)-fuzz -DCMAKE_BUILD_TYPE=Release -DEMBPRIV_FUZZ=ON -DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) > $(BUILD)-fuzz.configure.log 2>&1 || (cat $(BUILD)-fuzz.configure.log; exit 1)
	@cmake --build $(BUILD)-fuzz -j$(JOBS) --target fuzz_all
	$(SANITIZER_OPTIONS) $(BUILD)-fuzz/fuzz/make_seeds $(BUILD)-fuzz/fuzz_seeds
	@failed=""; for target in $(BUILD)-fuzz/fuzz/*_fuzz; do \
	  name=$$(basename $$target _fuzz); echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
	  mkdir -p $(BUILD)-fuzz/crashes/$$name; \
	  $(SANITIZER_OPTIONS) $$target -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 \
	    -artifact_prefix=$(BUILD)-fuzz/crashes/$$name/ $(BUILD)-fuzz/fuzz_seeds/$$name > $(BUILD)-fuzz/$$name.log 2>&1 \
	    || failed="$$failed $$name"; \
	  tail -n 7 $(BUILD)-fuzz/$$name.log; \
	 done; \
	 if [ -n "$$failed" ]; then echo "fuzz: crashes in$$failed (inputs in $(BUILD)-fuzz/crashes/)"; exit 1; fi

clean:
	rm -rf $(BUILD) $(BUILD).configure.log $(BUILD)-sanitize $(BUILD)-sanitize.configure.log $(BUILD)-fuzz $(BUILD)-fuzz.configure.log
