# tests/targets/targets.mk - the programs the end-to-end tests profile.
#
# Included by the top-level Makefile; `make targets` builds $(TARGET_BINS)
# into $(BUILD)/targets/.  Every target is built with -g and frame
# pointers unless its variant says otherwise, and never with
# $(SANITIZE): they stand in for the user's programs, and a sanitizer
# runtime would change their stacks and mappings.

TARGETS_DIR    := $(BUILD)/targets
TARGETS_SRC    := tests/targets
# Flags live here: a change to them rebuilds the targets.
TARGETS_MK     := $(TARGETS_SRC)/targets.mk
TARGET_CC      := $(CC)
TARGET_CXX     := $(CXX)
TARGET_WARN    := -Wall -Wextra
TARGET_CFLAGS  := -std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -pthread $(TARGET_WARN)
TARGET_LDLIBS  := -pthread -ldl
# -O2 without frame pointers: the unwinder must use .eh_frame.
TARGET_NOFP    := -std=gnu11 -D_GNU_SOURCE -g -O2 -fomit-frame-pointer -pthread $(TARGET_WARN)
# Neither frame pointers nor unwind tables: nothing sound to unwind with.
TARGET_NOUNWIND := $(TARGET_NOFP) -fno-asynchronous-unwind-tables -fno-unwind-tables

TARGET_C_NAMES := demo split deep recurse threads blocked sleeper ticker
TARGET_BINS    := $(addprefix $(TARGETS_DIR)/,$(TARGET_C_NAMES) deep_nofp \
                    deep_nounwind cxx)

$(addprefix $(TARGETS_DIR)/,$(TARGET_C_NAMES)): $(TARGETS_DIR)/%: \
		$(TARGETS_SRC)/%.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -o $@ $< $(TARGET_LDLIBS)

$(TARGETS_DIR)/deep_nofp: $(TARGETS_SRC)/deep.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_NOFP) -o $@ $< $(TARGET_LDLIBS)

# With -g, gcc moves the CFI it would have put in .eh_frame into
# .debug_frame, which libunwind and elfutils read: drop it too.
$(TARGETS_DIR)/deep_nounwind: $(TARGETS_SRC)/deep.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_NOUNWIND) -o $@ $< $(TARGET_LDLIBS)
	objcopy --remove-section=.debug_frame $@

$(TARGETS_DIR)/cxx: $(TARGETS_SRC)/cxx.cc $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CXX) -std=c++17 -g -O1 -fno-omit-frame-pointer -pthread \
	  $(TARGET_WARN) -o $@ $< $(TARGET_LDLIBS)

# --- reliability targets (tests/reliability_*.t) -----------------------------
# sigsend is a helper (it sends signals), built like a target for
# simplicity.  badfp keeps frame pointers but has no unwind tables, so only
# its (deliberately corrupt) %rbp chain is there to follow.  libA.so and
# libB.so are what dlswap loads, from its own directory: one source,
# dlswap_lib.c, built under two sets of names.
REL_C_NAMES    := sigcount sigsend churn exec_thread eintr zombie_leader \
                  vfork_parent dlswap
TARGET_BADFP   := $(TARGET_CFLAGS) -fno-asynchronous-unwind-tables -fno-unwind-tables
TARGET_SOFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -fPIC -shared $(TARGET_WARN)
TARGET_BINS    += $(addprefix $(TARGETS_DIR)/,$(REL_C_NAMES) badfp libA.so libB.so)

$(addprefix $(TARGETS_DIR)/,$(REL_C_NAMES)): $(TARGETS_DIR)/%: \
		$(TARGETS_SRC)/%.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -o $@ $< $(TARGET_LDLIBS)

$(TARGETS_DIR)/dlswap: | $(TARGETS_DIR)/libA.so $(TARGETS_DIR)/libB.so

# As for deep_nounwind: -g would keep the CFI in .debug_frame.
$(TARGETS_DIR)/badfp: $(TARGETS_SRC)/badfp.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_BADFP) -o $@ $< $(TARGET_LDLIBS)
	objcopy --remove-section=.debug_frame $@

# Both from dlswap_lib.c, under the names a_* and b_*.
$(TARGETS_DIR)/libA.so $(TARGETS_DIR)/libB.so: $(TARGETS_DIR)/lib%.so: \
		$(TARGETS_SRC)/dlswap_lib.c $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_SOFLAGS) -DLIB_NAME=$(if $(filter A,$*),a,b) -o $@ $<
