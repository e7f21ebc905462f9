# The two contract targets: `make demo` and `make test`. Both bootstrap a fresh machine first.
BUILD_TYPE ?= RelWithDebInfo
BUILD_DIR  ?= build/$(shell echo $(BUILD_TYPE) | tr A-Z a-z)
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all bootstrap configure build test install wheel demo asan format format-check docs clean fuzz \
        bench-memory fixtures \
        bench-commits bench-expire bench bench-lookup bench-threads bench-reads bench-plan bench-scale bench-runtime bench-cdc bench-json soak-stream soak-lifecycle \
        soak-run bench-runtime-soak soak-cdc

all: build

bootstrap:
	@scripts/bootstrap.sh

configure: bootstrap
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# FJORD_REQUIRE_SERVICES=1: a test that needs a component of the machine (PostgreSQL's binaries,
# ...) fails without it instead of skipping; and any test ctest reports as skipped fails the run,
# since ctest counts skips as passes (docs/testing.md). CTEST_ARGS: e.g. -R NAME for a subset.
CTEST_ARGS ?=
test: build
	@cd $(BUILD_DIR) && FJORD_REQUIRE_SERVICES=1 ctest --output-on-failure -j $(JOBS) --timeout 900 \
	  --output-junit ctest-junit.xml $(CTEST_ARGS)
	@if grep -q 'status="notrun"' $(BUILD_DIR)/ctest-junit.xml; then \
	  echo "make test: skipped tests (not accepted here):"; \
	  grep -o '<testcase name="[^"]*"[^>]*status="notrun"' $(BUILD_DIR)/ctest-junit.xml | \
	    sed 's/<testcase name="\([^"]*\)".*/  \1/'; \
	  exit 1; \
	fi

# Installs the public headers, libfjord.so and the CMake package (find_package(Fjord)) into PREFIX.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The Python package (docs/python.md): dist/fjord-<version>-cp311-cp311-manylinux_2_35_x86_64.whl,
# built against this build's libfjord.so with the pinned tools of .deps/python-venv, then made a
# manylinux wheel by auditwheel (scripts/repair_wheel.py: the system libraries bundled, Arrow C++
# left to the pyarrow it depends on).
wheel: configure
	@cmake --build $(BUILD_DIR) --target fjord_shared -j $(JOBS)
	@cmake --install $(BUILD_DIR) --prefix $(abspath $(BUILD_DIR))/python-prefix >/dev/null
	@rm -f dist/fjord-*.whl
	@FJORD_PREFIX=$(abspath $(BUILD_DIR))/python-prefix .deps/python-venv/bin/python -m pip wheel \
	  --no-build-isolation --no-deps --no-index --disable-pip-version-check -q -w dist \
	  -C build-dir=$(abspath $(BUILD_DIR))/python-wheel ./python
	@.deps/python-venv/bin/python scripts/repair_wheel.py dist/fjord-*-linux_x86_64.whl dist \
	  --arrow-dir .deps/pyarrow/pyarrow

demo: build
	@FJORD=$(BUILD_DIR)/tools/fjord scripts/demo.sh

# AddressSanitizer + UndefinedBehaviorSanitizer build and test run.
asan:
	@$(MAKE) test BUILD_TYPE=Debug BUILD_DIR=build/asan CMAKE_ARGS=-DFJORD_SANITIZE=ON

# Regenerates tests/fixtures/paimon-java with Java Paimon 0.8 / 0.9 / 1.0 / 1.1 / 1.4 (needs mvn and a
# JDK; not part of `make test`: the output is committed). See tests/fixtures/README.md.
fixtures:
	@interop/java/fixtures/generate.sh

docs: build
	@$(BUILD_DIR)/tools/fjord options --markdown > docs/options.md

FORMAT_FILES = $(shell git ls-files '*.cc' '*.h' '*.inc' 2>/dev/null)
format:
	@clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	@rm -rf build

# Longer fuzzing runs: FUZZ_SECONDS per target (default 600).
FUZZ_SECONDS ?= 600
fuzz: bootstrap
	@tests/fuzz/run_fuzzers.sh $(FUZZ_SECONDS)

# The benchmarks' own build (no tests), shared by the bench targets below.
BENCH_CONFIGURE = cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFJORD_BUILD_BENCH=ON -DFJORD_BUILD_TESTS=OFF >/dev/null

# Issue 7's benchmarks (bench/README.md): every workload with Fjord, Java Paimon and the limit (Arrow
# C++), interleaved, in one invocation; writes bench/results/<date>.md and the summary table of
# docs/performance.md. Not part of `make test`. Full scale by default (10M rows, 1M keys, 10,000
# commits, 2 repetitions; hours on 2 cores); BENCH_QUICK=1 for 1M rows, 100k keys, 1,000 commits.
# BENCH_ARGS passes more (e.g. --reps 3, --workloads pk-write,read-mor, --scratch DIR). Then the
# JSON-lines decode of `make bench-json` (issue 20 point 5; bench/results/<date>-json.md;
# BENCH_JSON_ARGS passes more to it, e.g. --rows, --reps).
bench: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target engine_fjord engine_arrow fjord json_lines_bench -j $(JOBS)
	@interop/java/build.sh >/dev/null
	@python3 bench/run_bench.py $(if $(filter 1,$(BENCH_QUICK)),--quick) $(BENCH_ARGS)
	@python3 bench/json_decode_bench.py --fjord build/bench/tools/fjord \
	  --decoder build/bench/bench/json_lines_bench --python .deps/python-venv/bin/python \
	  $(if $(filter 1,$(BENCH_QUICK)),--rows 100000 --reps 1 \
	    --out bench/results/$$(date -u +%Y-%m-%d)-json-quick.md) $(BENCH_JSON_ARGS)

# Issue 19 point 7 (bench/README.md, `make bench-lookup`): upserts with the writer's compaction,
# with deletion vectors and with the lookup changelog producer, against the same table without
# them, Fjord and Java Paimon interleaved (run_bench.py), then the lookup cache's peaks with 1,000
# buckets (lookup_cache_peaks.py); writes bench/results/<date>-lookup.md. Not part of `make test`;
# about 40 minutes on 2 shared cores (BENCH_QUICK=1: a few minutes). BENCH_ARGS goes to
# run_bench.py (e.g. --reps 3), BENCH_CACHE_ARGS to lookup_cache_peaks.py (e.g. --buckets 100).
LOOKUP_WORKLOADS := pk-write-compacting,read-compacting,pk-write-dv,read-dv,pk-write-lookup,read-lookup
bench-lookup: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target engine_fjord engine_arrow lookup_cache_bench -j $(JOBS)
	@interop/java/build.sh >/dev/null
	@out=bench/results/$$(date -u +%Y-%m-%d)-lookup$(if $(filter 1,$(BENCH_QUICK)),-quick).md && \
	  python3 bench/run_bench.py --workloads $(LOOKUP_WORKLOADS) --out $$out --docs '' \
	    $(if $(filter 1,$(BENCH_QUICK)),--rows 200000 --keys 200000 --reps 1,--rows 1000000 --keys 1000000) \
	    $(BENCH_ARGS) && \
	  python3 bench/lookup_cache_peaks.py --append $$out \
	    $(if $(filter 1,$(BENCH_QUICK)),--keys 200000 --load-rows 400000 --update-rows 40000) \
	    $(BENCH_CACHE_ARGS)

# Issue 20 point 2 (bench/README.md, `make bench-threads`): Fjord's writes, reads and compaction
# at 1 and at 2 threads on tables of 10 partitions / 4 buckets (bench/thread_scaling.py); writes
# bench/results/<date>-threads.md. Not part of `make test`; about 15 minutes on 2 cores
# (BENCH_QUICK=1: 1M rows, 1 repetition). BENCH_ARGS passes more (e.g. --buckets 8, --reps 5).
bench-threads: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target engine_fjord -j $(JOBS)
	@python3 bench/thread_scaling.py \
	  $(if $(filter 1,$(BENCH_QUICK)),--rows 1000000 --keys 100000 --reps 1 \
	    --out bench/results/$$(date -u +%Y-%m-%d)-threads-quick.md) $(BENCH_ARGS)

# Issue 20 point 3 (bench/README.md, `make bench-reads`): Fjord's reads against Arrow C++ and
# DuckDB's read_parquet on the same data files, the same thread count (bench/read_limits.py);
# writes bench/results/<date>-reads.md. Not part of `make test`; about 10 minutes on 2 cores
# (BENCH_QUICK=1: 1M rows, 1 repetition). BENCH_ARGS passes more (e.g. --threads 1, --reps 5).
bench-reads: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target engine_fjord engine_arrow -j $(JOBS)
	@python3 bench/read_limits.py \
	  $(if $(filter 1,$(BENCH_QUICK)),--rows 1000000 --keys 100000 --reps 1 \
	    --out bench/results/$$(date -u +%Y-%m-%d)-reads-quick.md) $(BENCH_ARGS)

# Issue 20 point 4 (bench/README.md, `make bench-plan`): planning a scan of an append table of
# 100,000 files in 10,000 partitions (and of one partition), Fjord against Java Paimon, at the
# default manifest parallelism and at 1 (bench/plan_bench.py); writes
# bench/results/<date>-plan.md. Not part of `make test`; about 10 minutes on 2 cores
# (BENCH_QUICK=1: 10,000 files in 1,000 partitions, 1 repetition).
bench-plan: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target engine_fjord -j $(JOBS)
	@interop/java/build.sh >/dev/null
	@python3 bench/plan_bench.py \
	  $(if $(filter 1,$(BENCH_QUICK)),--files 10000 --partitions 1000 --reps 1 \
	    --out bench/results/$$(date -u +%Y-%m-%d)-plan-quick.md) $(BENCH_ARGS)

# Issue 20 point 4 (bench/README.md, `make bench-scale`): Fjord's `make bench` workloads at 1M,
# 10M and 50M rows, rows/s per size, each write beside its Arrow limit (bench/scale_bench.py);
# writes bench/results/<date>-scale.md. Empties the page cache before every write when run as root.
# Not part of `make test`; about 25 minutes on 2 idle cores (BENCH_QUICK=1: 100k, 1M and 5M rows).
SCALE_QUICK_SIZES := 100000,1000000,5000000
bench-scale: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target engine_fjord engine_arrow -j $(JOBS)
	@python3 bench/scale_bench.py \
	  $(if $(filter 1,$(BENCH_QUICK)),--sizes $(SCALE_QUICK_SIZES) \
	    --out bench/results/$$(date -u +%Y-%m-%d)-scale-quick.md) $(BENCH_ARGS)

# Issue 4's memory benchmark: >= 2 GB of primary-key upserts with write-buffer-size = 64 mb.
# Not part of `make test`. BENCH_GB / BENCH_DIR override the size and the scratch folder.
BENCH_GB  ?= 2
BENCH_DIR ?= /tmp/fjord-bench-memory
bench-memory: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target pk_write_memory -j $(JOBS)
	@rm -rf $(BENCH_DIR)
	@build/bench/bench/pk_write_memory --dir $(BENCH_DIR) --gb $(BENCH_GB) --commit-gb 0.25 \
	  --buffer "64 mb" --trace 1 | grep -v "new max rss"
	@rm -rf $(BENCH_DIR)

# Issue 5's commit benchmark: BENCH_COMMITS small commits (one file of 3 rows each) to one table,
# printing commit latency (p50/p99) and the manifests the latest snapshot references per 1,000
# commits. Not part of `make test`. BENCH_COMMITS_DIR overrides the scratch folder.
BENCH_COMMITS     ?= 10000
BENCH_COMMITS_DIR ?= /tmp/fjord-bench-commits
bench-commits: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target commit_latency -j $(JOBS)
	@rm -rf $(BENCH_COMMITS_DIR)
	@build/bench/bench/commit_latency --dir $(BENCH_COMMITS_DIR) --commits $(BENCH_COMMITS)
	@rm -rf $(BENCH_COMMITS_DIR)

# Issue 15's evidence (bench/README.md): bytes on disk of a primary-key table under
# BENCH_EXPIRE_COMMITS upsert commits with the default retention on a simulated clock (one commit
# per 10 s), against the same table written write-only; writes bench/results/<date>-expire-bytes.md.
# Not part of `make test`. BENCH_EXPIRE_DIR overrides the scratch folder.
BENCH_EXPIRE_COMMITS ?= 1000
BENCH_EXPIRE_DIR     ?= /tmp/fjord-bench-expire
bench-expire: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target expire_bytes -j $(JOBS)
	@rm -rf $(BENCH_EXPIRE_DIR)
	@build/bench/bench/expire_bytes --dir $(BENCH_EXPIRE_DIR) --commits $(BENCH_EXPIRE_COMMITS) \
	  --out bench/results/$$(date -u +%Y-%m-%d)-expire-bytes.md
	@rm -rf $(BENCH_EXPIRE_DIR)

# Issue 16 point 8: an hour of 1 s checkpoints of `fjord run` in simulated time (checkpoints every
# 1 s / BENCH_SOAK_SPEEDUP with the source rate scaled alike), files per bucket over time into
# bench/results/<date>-runtime-soak.md. Not part of `make test`; about 3600 / SPEEDUP minutes.
BENCH_SOAK_CHECKPOINTS ?= 3600
BENCH_SOAK_SPEEDUP     ?= 10
BENCH_SOAK_TABLES      ?= pk,app
bench-runtime-soak: build
	@python3 bench/runtime_soak.py --fjord $(BUILD_DIR)/tools/fjord \
	  --checkpoints $(BENCH_SOAK_CHECKPOINTS) --speedup $(BENCH_SOAK_SPEEDUP) \
	  --tables $(BENCH_SOAK_TABLES) \
	  --out bench/results/$$(date -u +%Y-%m-%d)-runtime-soak.md

# Issue 16 point 8 (bench/README.md): `fjord run` against Flink 1.20 + Paimon's Flink connector, the
# same rows (JSON-lines files, then a Kafka topic) into the same tables, parallelism 1 and 2, bulk
# and throttled; writes bench/results/<date>-runtime.md. Not part of `make test`. BENCH_QUICK=1 for
# a few minutes' check of the harness; BENCH_ARGS passes more (--reps, --rows, --sources, ...).
bench-runtime: configure
	@cmake --build $(BUILD_DIR) --target fjord fjord_kafka_produce -j $(JOBS)
	@interop/flink/build.sh >/dev/null
	@python3 bench/runtime_bench.py --fjord $(BUILD_DIR)/tools/fjord \
	  --produce $(BUILD_DIR)/tests/fjord_kafka_produce $(if $(filter 1,$(BENCH_QUICK)),--quick) \
	  $(BENCH_ARGS)

# Issue 17 point 6 (bench/README.md): CDC ingestion, 1M Debezium JSON change events (schema envelope;
# inserts, updates with before images, deletes) in a 3-partition Kafka topic into a primary-key
# table, `fjord run --bounded` table sync against Flink 1.20 SQL with 'format' = 'debezium-json' +
# Paimon's Flink connector, parallelism 1 and 2; every table checked against the model; writes
# bench/results/<date>-cdc.md. Not part of `make test`. BENCH_QUICK=1: 50k events, P = 1.
bench-cdc: configure
	@cmake --build $(BUILD_DIR) --target fjord fjord_kafka_produce -j $(JOBS)
	@interop/flink/build.sh >/dev/null
	@python3 bench/cdc_bench.py --fjord $(BUILD_DIR)/tools/fjord \
	  --produce $(BUILD_DIR)/tests/fjord_kafka_produce $(if $(filter 1,$(BENCH_QUICK)),--quick) \
	  $(BENCH_ARGS)

# Issue 20 point 5: JSON-lines decode against simdjson's parse alone and pyarrow.json.read_json,
# and `fjord write` from JSON lines / CSV / Parquet (bench/json_decode_bench.py; writes
# bench/results/<date>-json.md). Not part of `make test`. BENCH_ARGS passes more (--rows, --reps).
bench-json: bootstrap
	@$(BENCH_CONFIGURE)
	@cmake --build build/bench --target fjord json_lines_bench -j $(JOBS)
	@python3 bench/json_decode_bench.py --fjord build/bench/tools/fjord \
	  --decoder build/bench/bench/json_lines_bench --python .deps/python-venv/bin/python $(BENCH_ARGS)

# Issue 5's crash soaks (docs/testing.md, "Crash and soak tests"): in-process crash injection with
# Java reading a sample, then real processes killed with SIGKILL. Not part of `make test`.
# SOAK_RUNS random crash runs, SOAK_IDS identifiers per table, SOAK_SEED (default: the clock).
SOAK_RUNS ?= 5000
SOAK_IDS  ?= 300
.PHONY: soak
soak: build
	@RUNS=$(SOAK_RUNS) SEED=$(SOAK_SEED) BUILD_DIR=$(BUILD_DIR) scripts/soak_crash.sh
	@IDS=$(SOAK_IDS) SEED=$(SOAK_SEED) BUILD_DIR=$(BUILD_DIR) scripts/soak_sigkill.sh

# Issue 6's differential soak (docs/testing.md, "Differential test of the merge engines"): the
# merge-engine differential test for DIFF_SECONDS seconds from seed DIFF_SEED (default: the clock),
# optionally for one engine (DIFF_ENGINE = deduplicate, partial-update, aggregation, first-row).
# Not part of `make test`, which runs it for 30 s of CPU from a fixed seed.
DIFF_SECONDS ?= 1800
DIFF_SEED    ?= $(shell date +%s)
DIFF_ENGINE  ?=
.PHONY: soak-differential
soak-differential: build
	@$(BUILD_DIR)/tests/differential/fjord_differential_test --runs 100000000 \
	  --seconds $(DIFF_SECONDS) --seed $(DIFF_SEED) $(if $(DIFF_ENGINE),--engine $(DIFF_ENGINE))

# Issue 14's differential stream test with many seeds (random upserts, deletes, compactions and
# consumer restarts per producer): STREAM_SEEDS per producer (default 200).
STREAM_SEEDS ?= 200
soak-stream: build
	@FJORD_STREAM_SEEDS=$(STREAM_SEEDS) $(BUILD_DIR)/tests/fjord_api_stream_test \
	  --gtest_filter='*DifferentialRestartsWithAConsumer*'

# Issue 15's lifecycle soak (docs/testing.md, "Lifecycle test"): random histories of commits,
# compactions, tags, rollbacks, consumers, expiration and orphan clean-up on a fake clock, every
# third run also crashing each maintenance operation at every I/O step, for LIFECYCLE_SECONDS from
# seed LIFECYCLE_SEED (default: the clock; a failure prints the line that replays it), with
# LIFECYCLE_STEPS steps per run. Not part of `make test`, which runs 16 runs from a fixed seed.
LIFECYCLE_SECONDS ?= 1800
LIFECYCLE_SEED    ?= $(shell date +%s)
LIFECYCLE_STEPS   ?= 60
soak-lifecycle: build
	@ARROW_DEFAULT_MEMORY_POOL=system $(BUILD_DIR)/tests/lifecycle/fjord_lifecycle_test \
	  --runs 1000000000 --crash-runs 1000000000 --seconds $(LIFECYCLE_SECONDS) \
	  --seed $(LIFECYCLE_SEED) --steps $(LIFECYCLE_STEPS) --crash-steps $(LIFECYCLE_STEPS)

# Issue 16's longer exactly-once soak of `fjord run`: SOAK_SECONDS of SIGKILLs and restarts
# (default 600), SOAK_SEED for another random schedule. Not part of `make test`.
SOAK_SECONDS ?= 600
SOAK_SEED    ?= 1
soak-run: build
	@python3 tests/runtime_kill_test.py --fjord $(BUILD_DIR)/tools/fjord --seconds $(SOAK_SECONDS) \
	  --seed $(SOAK_SEED)

# Issue 17's CDC soak (docs/testing.md): SOAK_SECONDS (default 600) split over PostgreSQL ->
# Debezium -> Kafka -> fjord run (with broker outages), PostgreSQL -> fjord run's postgres source,
# and Debezium JSON files; SIGKILLs of fjord run every 0.3-3 s, schema changes; Java reads exactly
# PostgreSQL's rows. Writes bench/results/<date>-cdc-soak.md. Not part of `make test`.
# SOAK_CDC_PATHS picks paths (debezium,direct,files).
SOAK_CDC_PATHS ?= debezium,direct,files
soak-cdc: build
	@tests/kafka/build.sh >/dev/null && tests/debezium/build.sh >/dev/null && \
	  interop/java/build.sh >/dev/null
	@python3 tests/cdc_soak.py --fjord $(BUILD_DIR)/tools/fjord --seconds $(SOAK_SECONDS) \
	  --seed $(SOAK_SEED) --paths $(SOAK_CDC_PATHS) \
	  --out bench/results/$$(date -u +%Y-%m-%d)-cdc-soak.md
