# embpriv: the two entry points of README.md, plus build and bench.
#   make demo   installs what is missing, builds, runs the theory checks at d = 4096, a paper
#               sweep, KNN inversion of GloVe word embeddings of real sentences, ObfusLM
#               on the stories260K language model, and PrivateAI on real e-mails
#   make test   installs what is missing, builds, runs every test (ctest)
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: setup build demo test bench clean

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
	$(BUILD)/embpriv run configs/privateai_demo.yaml --overwrite

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 900

# Every benchmark against its peer on the same BLAS kernel, then one table (bench/README.md);
# BENCH_SIZE=full for the full sizes.
bench: build
	@bash scripts/setup.sh --bench
	BUILD_DIR=$(BUILD) bash bench/run_all.sh

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
