# tests/fuzz/fuzz.mk - libFuzzer targets for every reader (src/formats/load_*.c),
# and for the kallsyms parser (src/frames/ksyms.c).
#
# Included by the top-level Makefile after PURE_SRCS is set, or run on its
# own (make -f tests/fuzz/fuzz.mk fuzz-build), when it reads the module
# lists from the Makefile.
#
#   make fuzz-build     build $(BUILD)/fuzz/fuzz_NAME for each
#                       tests/fuzz/fuzz_NAME.c (clang, libFuzzer, ASan, UBSan)
#   make fuzz           build, then run each for FUZZ_SECONDS (60), then
#                       replay every saved input in tests/fuzz/regress/NAME/
#   make fuzz-regress   only the replay
#
# Seeds are read from tests/fuzz/corpus/NAME/; what a run learns goes to
# $(BUILD)/fuzz/corpus/NAME/ and crashes to $(BUILD)/fuzz/crash-NAME-*.
# A crash input worth keeping is copied to tests/fuzz/regress/NAME/.
# The pure modules (and, for the fuzzers of its readers, the frames
# room's libc-only parsers) are compiled again with clang and the
# sanitizers into $(BUILD)/fuzz/obj/; the fuzzers link only them (no
# curses, no ptrace).

ifndef SPROFTOP_FUZZ_MK
SPROFTOP_FUZZ_MK := 1

ifndef PURE_SRCS
include Makefile
endif

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 65536
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
                -Wall -Wextra -MMD -MP -DSPROFTOP_VERSION='"$(VERSION)"'
FUZZ_NAMES   := $(sort $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_OBJS    := $(PURE_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
# fuzz_pyframes also links the CPython reader (src/frames/, without
# script_frames.c, which pushes to the engine's ingest buffer).
FUZZ_EXTRA_pyframes := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,\
                         $(filter-out %/script_frames.c,$(frames_SRCS)))
# fuzz_kallsyms links the kernel symbol table's parser (src/frames/ksyms.c).
FUZZ_EXTRA_kallsyms := $(FUZZ_DIR)/obj/src/frames/ksyms.o
# libFuzzer options for a bounded, reproducible run: a slow input (10 s)
# or a memory hog (2 GiB) is a finding too.
FUZZ_RUN_OPTS := -timeout=10 -rss_limit_mb=2048 -max_len=$(FUZZ_MAX_LEN) \
                 -print_final_stats=1

.PHONY: fuzz fuzz-build fuzz-regress

fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(formats_INC) -Isrc/frames -Isrc/proc -c -o $@ $<

$(FUZZ_DIR)/fuzz_pyframes: $(FUZZ_EXTRA_pyframes)
$(FUZZ_DIR)/fuzz_kallsyms: $(FUZZ_EXTRA_kallsyms)
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) $(formats_INC) -Isrc/frames -Isrc/proc -o $@ $< \
	  $(FUZZ_OBJS) $(FUZZ_EXTRA_$*) -lz -lm

# Replay the saved inputs: each must now load or fail cleanly.
define FUZZ_REGRESS
	@set -e; for n in $(FUZZ_NAMES); do \
	  set -- tests/fuzz/regress/$$n/*; \
	  [ -e "$$1" ] || continue; \
	  echo "fuzz_$$n: replaying $$# saved inputs"; \
	  $(FUZZ_DIR)/fuzz_$$n $(FUZZ_RUN_OPTS) "$$@"; \
	done
endef

fuzz-regress: $(FUZZ_BINS)
	$(FUZZ_REGRESS)

fuzz: $(FUZZ_BINS)
	@set -e; for n in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$n; \
	  echo "fuzz_$$n: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz_$$n $(FUZZ_RUN_OPTS) -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_DIR)/crash-$$n- \
	    $(FUZZ_DIR)/corpus/$$n tests/fuzz/corpus/$$n; \
	done
	$(FUZZ_REGRESS)

endif
