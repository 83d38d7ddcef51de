# tests/bench/bench.mk - `make bench`: builds the benchmark helpers and runs
# tests/bench/run.sh, which rewrites docs/PERFORMANCE.md.
BENCH_DIR  := $(BUILD)/bench
BENCH_BINS := $(BENCH_DIR)/spin $(BENCH_DIR)/spin_nofp $(BENCH_DIR)/spin_sys $(BENCH_DIR)/rtt $(BENCH_DIR)/snap \
              $(BENCH_DIR)/bench_profile $(BENCH_DIR)/sigdelay

$(BENCH_DIR)/spin: tests/bench/spin.c tests/bench/progress.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-omit-frame-pointer -pthread -o $@ $<

$(BENCH_DIR)/spin_nofp: tests/bench/spin.c tests/bench/progress.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fomit-frame-pointer -pthread -o $@ $<

$(BENCH_DIR)/spin_sys: tests/bench/spin.c tests/bench/progress.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-omit-frame-pointer -pthread -DSPIN_READ -o $@ $<

$(BENCH_DIR)/snap: tests/bench/snap.c tests/bench/progress.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -o $@ $<

$(BENCH_DIR)/rtt: tests/bench/rtt.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

$(BENCH_DIR)/sigdelay: tests/bench/sigdelay.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -o $@ $<

$(BENCH_DIR)/bench_profile: tests/bench/bench_profile.c $(PURE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(formats_FLAGS) -o $@ $< $(PURE_OBJS) -lm -lz

bench: all targets $(BENCH_BINS)
	tests/bench/run.sh
