# tests/unit/engine/unit.mk - unit tests of the engine's libc-only rooms.
#
# Included by the top-level Makefile.  The tests in tests/unit/ link the
# pure layers only; these also link the engine rooms that are libc only
# (LIBC_ROOMS in src/layers.mk: proc, sample, collect, frames) from an
# archive, so each binary takes only the members it needs (maps, ingest,
# the collector's fold, the CPython reader).  Those rooms are compiled poisoned against
# ptrace, perf_event, libunwind and libdw, and the collector's test brings
# its own fake symbolizer: no engine unit test needs a live process.

ENGINE_UNIT_SRCS := $(sort $(wildcard tests/unit/engine/test_*.c))
ENGINE_UNIT_BINS := $(ENGINE_UNIT_SRCS:tests/unit/engine/%.c=$(BUILD)/tests/unit/engine/%)
ENGINE_UNIT_LIB  := $(BUILD)/tests/unit/engine/libengine-unit.a

$(ENGINE_UNIT_LIB): $(LIBC_ROOM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

.SECONDEXPANSION:
$(ENGINE_UNIT_BINS): $(BUILD)/tests/unit/engine/%: tests/unit/engine/%.c \
		$$(ENGINE_UNIT_OBJS_$$*) $(ENGINE_UNIT_LIB) $(PURE_OBJS) \
		tests/unit/engine/unit.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(collect_FLAGS) $(ENGINE_UNIT_FLAGS_$*) -o $@ $< \
	  $(ENGINE_UNIT_OBJS_$*) $(ENGINE_UNIT_LIB) $(PURE_OBJS) -lcmocka -lpthread -lm -lz

# The CPython reader's test sees the frames room's inside, and the memory
# images it shares with its fuzz target (tests/fuzz/pyimage.h).
ENGINE_UNIT_FLAGS_test_pyframes := -I$(frames_DIR) -Itests/fuzz

# The perf room's libc-only part: how a sample finds the interpreter walk
# the BPF program wrote for it (perf_pymatch.c), linked on its own.
ENGINE_UNIT_FLAGS_test_pymatch := -I$(perf_DIR) -I$(frames_DIR)
ENGINE_UNIT_OBJS_test_pymatch := $(BUILD)/src/sample/perf/perf_pymatch.o

UNIT_BINS += $(ENGINE_UNIT_BINS)
