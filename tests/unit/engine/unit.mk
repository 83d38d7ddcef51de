# tests/unit/engine/unit.mk - unit tests of the engine's libc-only modules.
#
# Included by the top-level Makefile.  The tests in tests/unit/ link the
# pure layers only; these also link the engine modules they test (maps,
# ingest, the collector's fold) from an archive, so each binary takes only
# the members it needs.  None of those modules uses ptrace, libunwind or
# libdw, and the collector's test brings its own fake symbolizer: no
# engine unit test needs a live process to profile.

ENGINE_UNIT_SRCS := $(sort $(wildcard tests/unit/engine/test_*.c))
ENGINE_UNIT_BINS := $(ENGINE_UNIT_SRCS:tests/unit/engine/%.c=$(BUILD)/tests/unit/engine/%)
ENGINE_UNIT_MODS := maps ingest fold
ENGINE_UNIT_LIB  := $(BUILD)/tests/unit/engine/libengine-unit.a

$(ENGINE_UNIT_LIB): $(ENGINE_UNIT_MODS:%=$(BUILD)/src/engine/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(ENGINE_UNIT_BINS): $(BUILD)/tests/unit/engine/%: tests/unit/engine/%.c \
		$(ENGINE_UNIT_LIB) $(PURE_OBJS) tests/unit/engine/unit.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(engine_FLAGS) -o $@ $< $(ENGINE_UNIT_LIB) \
	  $(PURE_OBJS) -lcmocka -lpthread -lm -lz

UNIT_BINS += $(ENGINE_UNIT_BINS)
