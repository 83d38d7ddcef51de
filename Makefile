# sproftop - live sampling profiler for native Linux processes.
#
#   make            build ./sproftop
#   make demo       install missing packages, build, open sproftop on the demo
#   make test       install missing packages, build, run every test (TAP)
#   make asan       the test suite under AddressSanitizer + UBSan
#   make tsan       the test suite under ThreadSanitizer
#   make asan TESTS=...   only those tests (test-only, tsan too)
#   make check-layers   prove the layer fences of src/layers.mk hold
#   make install PREFIX=/usr/local DESTDIR=   /   make uninstall
#
# WERROR=0 turns warnings back into warnings.

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= build
WERROR     ?= 1
CC         ?= cc
PKG_CONFIG ?= pkg-config

PKGS := ncursesw libunwind-ptrace libdw libdebuginfod libbpf capstone

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wwrite-strings -Wundef -Wswitch-enum \
        -Wvla -Wpointer-arith
ifeq ($(WERROR),1)
WARN += -Werror
endif

OPT      ?= -O2 -g
SANITIZE ?=
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -MMD -MP $(SANITIZE) \
               -DSPROFTOP_VERSION='"$(VERSION)"'
PKG_CFLAGS  = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
LIBS_EXTRA := -lunwind-x86_64 -lunwind -liberty -lstdc++ -lpthread -lm -lz

# The layers, their folders and what each may include: src/layers.mk.
.DEFAULT_GOAL := all
PKG_STAMP := $(BUILD)/.pkgs-ok
include src/layers.mk
MAIN_OBJ  := $(BUILD)/src/app/main.o
LIB_OBJS  := $(filter-out $(MAIN_OBJ),$(PURE_OBJS) $(ENGINE_OBJS) $(ui_OBJS) $(app_OBJS))

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
# Engine unit tests (the libc-only rooms): ENGINE_UNIT_BINS, added to UNIT_BINS.
include tests/unit/engine/unit.mk

# The default build is ./sproftop; sanitizer builds put theirs in their
# build directory so they never replace it.
ifeq ($(BUILD),build)
BIN := sproftop
else
BIN := $(BUILD)/sproftop
endif

.PHONY: all deps demo test test-only asan tsan ubsan clean \
        install uninstall targets unit bench
all: $(BIN)

$(BIN): $(MAIN_OBJ) $(LIB_OBJS)
	$(CC) $(SANITIZE) -o $@ $^ $(PKG_LIBS) $(LIBS_EXTRA)

# Plain `make` on a machine without the -dev packages: one line, not a
# missing-header error.
$(PKG_STAMP):
	@$(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || { \
	  echo "sproftop: missing build packages (pkg-config: $(PKGS)); run 'make deps' first" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@

# Unit tests link only the pure modules: no curses, ptrace, libunwind, libdw.
$(BUILD)/tests/unit/%: tests/unit/%.c $(PURE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(formats_FLAGS) -o $@ $< $(PURE_OBJS) -lcmocka -lm -lz

# UI unit tests (test_ui_*.c) link the UI's objects and curses: key codes
# are curses constants.  They open no terminal.  Only the layers the UI may
# see are linked, so a UI reaching into formats or the engine fails here.
UI_TEST_OBJS := $(ui_OBJS) $(model_OBJS) $(base_OBJS)
$(BUILD)/tests/unit/test_ui_%: tests/unit/test_ui_%.c $(UI_TEST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(ui_FLAGS) -o $@ $< $(UI_TEST_OBJS) -lcmocka \
	  $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null) -lm

unit: $(UNIT_BINS)

# The BPF program the perf backend attaches to its sampling events to read
# Python frames at sample time (src/frames/bpf/pyframes.bpf.c, with the
# walk of src/frames/pywalk.h), compiled by clang and embedded by
# bpftool's skeleton, which perf_pybpf.c loads with libbpf.
BPF_CLANG ?= clang
BPFTOOL   ?= bpftool
BPF_OBJ   := $(BUILD)/bpf/pyframes.bpf.o
BPF_SKEL  := $(BUILD)/gen/pyframes.skel.h
$(BPF_OBJ): src/frames/bpf/pyframes.bpf.c src/frames/pywalk.h src/frames/rbwalk.h \
  src/frames/pybpf.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -O2 -g -target bpf -mcpu=v3 \
	  -I/usr/include/$(shell $(CC) -dumpmachine) -Isrc/frames -c -o $@ $<
$(BPF_SKEL): $(BPF_OBJ)
	@mkdir -p $(dir $@)
	$(BPFTOOL) gen skeleton $< name pyframes >$@.tmp && mv $@.tmp $@
$(BUILD)/src/sample/perf/perf_pybpf.o: $(BPF_SKEL)
$(BUILD)/src/sample/perf/perf_pybpf.o: perf_FLAGS += -I$(BUILD)/gen

# Test targets: tests/targets/targets.mk defines TARGET_BINS and their rules.
include tests/targets/targets.mk
# Test-only helper programs (symbolizer driver...): TOOL_BINS.
-include tests/tools/tools.mk
# Fuzzing the readers: make fuzz (FUZZ_SECONDS), fuzz-build, fuzz-regress.
-include tests/fuzz/fuzz.mk
# Benchmarks: `make bench` rewrites docs/PERFORMANCE.md.
include tests/bench/bench.mk
targets: $(TARGET_BINS) $(TOOL_BINS)

# --- set-up ---------------------------------------------------------------
# Debian packages the build and the tests need.  `make deps` installs the
# missing ones (a no-op when all are present).
DEB_PKGS := gcc g++ make pkg-config libncurses-dev libunwind-dev libdw-dev \
            libdebuginfod-dev debuginfod xz-utils \
            libcmocka-dev zlib1g-dev elfutils perl tmux strace procps \
            ruby-stackprof golang-go graphviz valgrind libxml2-utils groff \
            clang libclang-rt-14-dev chromium nodejs openjdk-17-jdk-headless \
            racket libbpf-dev bpftool python3 libiberty-dev libcapstone-dev \
            linux-perf universal-ctags
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@# Debian's nodejs lacks npm; NodeSource's bundles it (and conflicts with
	@# Debian's npm package), so npm is installed only when missing.
	@command -v npm >/dev/null || { if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends npm; }
	@# The speedscope file-format schema and a JSON-schema validator, for the
	@# speedscope consumer test.
	@[ -d build/npm/node_modules/ajv ] || npm install --prefix build/npm --no-audit --no-fund \
	  --loglevel=error speedscope@1.25.0 ajv@8.20.0 >/dev/null

demo: deps
	@$(MAKE) --no-print-directory all targets
	@tests/demo.sh

test: deps
	@$(MAKE) --no-print-directory test-only

# TESTS: what test-only (and so asan, tsan) runs; a subset, e.g.
# make asan TESTS='tests/engine_*.t $(UNIT_BINS)' (.ci/run does).
TESTS ?= tests/*.t $(UNIT_BINS)
# Two test files at a time: each file has its own temporary directory,
# tmux socket, debuginfod port and targets, and one file at a time kept
# 2 CPUs only about 55% busy (docs/PERFORMANCE.md, "Sanitizers and the
# soak", has the times).  The sanitizer builds run one file at a time:
# two ASan files at a load of 24-35 let targets with fixed lives end
# before their checks.  PROVE_FLAGS= runs one file at a time.
PROVE_FLAGS ?= -j2
test-only: all targets unit check-layers
	@SPROFTOP=$(CURDIR)/$(BIN) BUILD=$(BUILD) prove --exec '' --timer $(PROVE_FLAGS) $(TESTS)

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT='-O1 -g -fno-omit-frame-pointer' \
	  SANITIZE='-fsanitize=address,undefined -fno-sanitize-recover=undefined' test-only PROVE_FLAGS=

ubsan:
	@$(MAKE) --no-print-directory BUILD=build-ubsan OPT='-O1 -g' \
	  SANITIZE='-fsanitize=undefined -fno-sanitize-recover=undefined' test-only PROVE_FLAGS=

tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT='-O1 -g' \
	  SANITIZE='-fsanitize=thread' test-only PROVE_FLAGS=

# --- documentation -----------------------------------------------------------
# `make docs` regenerates the key and option tables of README.md and
# docs/sproftop.1 from --help-keys and --help-options; `make docs-check` runs tests/docs.t alone (make test runs it
# too); `make screenshots` retakes screenshots/*.png from the real TUI.
.PHONY: docs docs-check screenshots
docs: all
	@SPROFTOP=$(CURDIR)/$(BIN) tests/docs/keys.sh
	@SPROFTOP=$(CURDIR)/$(BIN) tests/docs/options.sh

docs-check: all
	@SPROFTOP=$(CURDIR)/$(BIN) BUILD=$(BUILD) prove --exec '' tests/docs.t

screenshots: all targets
	@SPROFTOP=$(CURDIR)/$(BIN) BUILD=$(BUILD) tests/screenshots/make.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 sproftop $(DESTDIR)$(PREFIX)/bin/sproftop
	install -m 644 docs/sproftop.1 $(DESTDIR)$(PREFIX)/share/man/man1/sproftop.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/sproftop $(DESTDIR)$(PREFIX)/share/man/man1/sproftop.1

clean:
	rm -rf build build-asan build-ubsan build-tsan sproftop

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
