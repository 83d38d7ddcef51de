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

TARGET_C_NAMES := demo split deep recurse threads blocked sleeper ticker phase \
                  rates \
                  forkwork fixedwork
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

# Rust v0 symbol names on C code, and no debug info: named from .symtab.
TARGET_BINS += $(TARGETS_DIR)/rustnames
$(TARGETS_DIR)/rustnames: $(TARGETS_SRC)/rustnames.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(filter-out -g,$(TARGET_CFLAGS)) -g0 -o $@ $< $(TARGET_LDLIBS)

$(TARGETS_DIR)/cxx: $(TARGETS_SRC)/cxx.cc $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CXX) -std=c++17 -g -O1 -fno-omit-frame-pointer -pthread \
	  $(TARGET_WARN) -o $@ $< $(TARGET_LDLIBS)

# fixedwork2: fixedwork built again with another burn function, a second
# binary (another build-id) of the same shape (tests/longrun.t).
TARGET_BINS    += $(TARGETS_DIR)/fixedwork2

$(TARGETS_DIR)/fixedwork2: $(TARGETS_SRC)/fixedwork.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -DBURN=fixed_burn2 -o $@ $< $(TARGET_LDLIBS)

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

# libuser needs libA.so from its own directory: DT_RUNPATH $ORIGIN.
TARGET_BINS    += $(TARGETS_DIR)/libuser
$(TARGETS_DIR)/libuser: $(TARGETS_SRC)/libuser.c $(TARGETS_SRC)/common.h \
		$(TARGETS_DIR)/libA.so $(TARGETS_MK)
	$(TARGET_CC) $(TARGET_CFLAGS) -o $@ $< -L$(TARGETS_DIR) -l:libA.so \
	  -Wl,--enable-new-dtags,-rpath,'$$ORIGIN' $(TARGET_LDLIBS)

# Both from dlswap_lib.c, under the names a_* and b_*.
$(TARGETS_DIR)/libA.so $(TARGETS_DIR)/libB.so: $(TARGETS_DIR)/lib%.so: \
		$(TARGETS_SRC)/dlswap_lib.c $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_SOFLAGS) -DLIB_NAME=$(if $(filter A,$*),a,b) -o $@ $<

# --- perf backend targets (tests/perf_*.t) -----------------------------------
# halfsleep: 50% of wall-clock time asleep in one chain, 50% spinning in
# another (--idle shares); noperf: a helper that runs a command where
# perf_event_open fails with EACCES (a seccomp filter), for auto's fallback;
# waits: threads that each wait in one way and measure it (the ground
# truth for --idle's reasons); readzero: a read() loop, mostly kernel time
# (kernel frames against perf record -g).
PERF_C_NAMES   := halfsleep noperf waits readzero
TARGET_BINS    += $(addprefix $(TARGETS_DIR)/,$(PERF_C_NAMES))

$(addprefix $(TARGETS_DIR)/,$(PERF_C_NAMES)): $(TARGETS_DIR)/%: \
		$(TARGETS_SRC)/%.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -o $@ $< $(TARGET_LDLIBS)
# --- names for stripped code (tests/engine_names.t) --------------------------
# names is built with -g; names.debug is its debug info split off
# (objcopy --only-keep-debug, as distributions do); names-stripped has
# neither symbols nor debug info; names-link has a .gnu_debuglink to
# names.debug; names-mini carries MiniDebugInfo (.gnu_debugdata: the
# symbols of the functions .dynsym lacks, xz-compressed, as Fedora ships
# it).  All keep the same build-id.
NAMES_BINS  := $(addprefix $(TARGETS_DIR)/,names names.debug names-stripped \
                 names-link names-mini)
TARGET_BINS += $(NAMES_BINS)

$(TARGETS_DIR)/names: $(TARGETS_SRC)/names.c $(TARGETS_SRC)/common.h $(TARGETS_MK)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -Wl,--build-id -o $@ $< $(TARGET_LDLIBS)

$(TARGETS_DIR)/names.debug: $(TARGETS_DIR)/names
	objcopy --only-keep-debug $< $@

$(TARGETS_DIR)/names-stripped: $(TARGETS_DIR)/names
	objcopy --strip-all $< $@

$(TARGETS_DIR)/names-link: $(TARGETS_DIR)/names $(TARGETS_DIR)/names.debug
	cd $(dir $@) && objcopy --strip-all --add-gnu-debuglink=names.debug names names-link

$(TARGETS_DIR)/names-mini: $(TARGETS_DIR)/names
	@rm -rf $@.tmp && mkdir -p $@.tmp
	nm -D --format=posix --defined-only $< | awk '{ print $$1 }' | sort >$@.tmp/dynsyms
	nm --format=posix --defined-only $< | awk '$$2 ~ /^[TtDd]$$/ { print $$1 }' | sort >$@.tmp/funcsyms
	comm -13 $@.tmp/dynsyms $@.tmp/funcsyms >$@.tmp/keep
	objcopy --only-keep-debug $< $@.tmp/debug
	objcopy -S --remove-section .gdb_index --remove-section .comment \
	  --keep-symbols=$@.tmp/keep $@.tmp/debug $@.tmp/mini
	xz -f $@.tmp/mini
	objcopy --strip-all --remove-section .comment \
	  --add-section .gnu_debugdata=$@.tmp/mini.xz $< $@
	@rm -rf $@.tmp

# --- annotate (tests/annotate.t) ----------------------------------------------
# loops.c built as a position-independent executable (loops), a fixed
# one (loops_nopie), without symbols (loops_stripped: its functions are
# named by their unwind entries), without symbols or unwind tables
# (loops_bare: no function holds its code), and as a shared library
# (libloops.so) that loops_shared calls, found beside it.
LOOPS_BINS  := $(addprefix $(TARGETS_DIR)/,loops loops_nopie loops_stripped \
                 loops_bare libloops.so loops_shared)
TARGET_BINS += $(LOOPS_BINS)
LOOPS_DEPS  := $(TARGETS_SRC)/loops.c $(TARGETS_SRC)/common.h $(TARGETS_MK)

$(TARGETS_DIR)/loops: $(LOOPS_DEPS)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -Wl,--build-id -o $@ $< $(TARGET_LDLIBS)

$(TARGETS_DIR)/loops_nopie: $(LOOPS_DEPS)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -fno-pie -no-pie -o $@ $< $(TARGET_LDLIBS)

$(TARGETS_DIR)/loops_stripped: $(TARGETS_DIR)/loops
	objcopy --strip-all $< $@

$(TARGETS_DIR)/loops_bare: $(LOOPS_DEPS)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -fno-asynchronous-unwind-tables \
	  -fno-unwind-tables -o $@.tmp $< $(TARGET_LDLIBS)
	objcopy --strip-all --remove-section=.debug_frame $@.tmp $@
	@rm -f $@.tmp

$(TARGETS_DIR)/libloops.so: $(LOOPS_DEPS)
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_SOFLAGS) -D_GNU_SOURCE -DLOOPS_NO_MAIN -o $@ $<

$(TARGETS_DIR)/loops_shared: $(LOOPS_DEPS) $(TARGETS_DIR)/libloops.so
	$(TARGET_CC) $(TARGET_CFLAGS) -DLOOPS_NO_CODE -o $@ $< \
	  -L$(TARGETS_DIR) -lloops -Wl,-rpath,'$$ORIGIN' $(TARGET_LDLIBS)
