# src/layers.mk - the layers of sproftop and what each may include.
#
# Included by the top-level Makefile.  Every layer is a folder; each is
# compiled with only the -I paths of the layers below it, so including a
# header of a higher layer is a compile error ("No such file").  System
# headers that a layer must not use (curses, ptrace, perf_event, libunwind,
# elfutils) are "poisoned": a folder of stand-in headers that #error is put
# first on the include path of the layers that may not use them.
#
#   app      src/app/      CLI, batch mode, --dump driver: sees everything
#   ui       ui/           curses views: base, model (and ui/)
#   engine   src/engine/   target, samplers, unwinder, symbolizer, collector:
#                          base, model, libunwind, libdw, ptrace, perf_event
#   formats  src/formats/  writers and readers: base, model (pure)
#   frames   src/frames/   interpreter frame readers over a bounded view
#                          of another process's memory: base, model (pure)
#   model    src/model/    the profile and its queries, the source
#                          interface: base (pure)
#   base     src/base/     containers, hashing, clock, strings (pure)
#
# Layers below engine and ui are pure: libc (and zlib, for gzip) only.

LAYERS := base model frames formats engine ui app

base_DIR    := src/base
model_DIR   := src/model
frames_DIR  := src/frames
formats_DIR := src/formats
engine_DIR  := src/engine
ui_DIR      := ui
app_DIR     := src/app

base_INC    := -Isrc/base
model_INC   := $(base_INC) -Isrc/model
frames_INC  := $(model_INC) -Isrc/frames
formats_INC := $(model_INC) -Isrc/formats
engine_INC  := $(model_INC) -Isrc/frames -Isrc/engine
ui_INC      := $(model_INC) -Iui
app_INC     := $(formats_INC) -Isrc/engine -Iui -Isrc/app

# Headers the pure layers may not include, and those the UI may not.
POISON_ENGINE := sys/ptrace.h linux/ptrace.h linux/perf_event.h libunwind.h \
                 libunwind-ptrace.h libunwind-x86_64.h elfutils/libdwfl.h \
                 elfutils/libdw.h elfutils/libdwelf.h elfutils/debuginfod.h \
                 elfutils/version.h libelf.h gelf.h dwarf.h
POISON_CURSES := curses.h ncurses.h ncursesw/curses.h ncursesw/ncurses.h \
                 term.h panel.h
POISON_DIR    := $(BUILD)/poison
pure_POISON   := $(POISON_ENGINE) $(POISON_CURSES)
ui_POISON     := $(POISON_ENGINE)
engine_POISON := $(POISON_CURSES)

base_FLAGS    := $(base_INC) -I$(POISON_DIR)/pure
model_FLAGS   := $(model_INC) -I$(POISON_DIR)/pure
frames_FLAGS  := $(frames_INC) -I$(POISON_DIR)/pure
formats_FLAGS := $(formats_INC) -I$(POISON_DIR)/pure
engine_FLAGS  := $(engine_INC) -I$(POISON_DIR)/engine $(PKG_CFLAGS)
ui_FLAGS      := $(ui_INC) -I$(POISON_DIR)/ui $(PKG_CFLAGS)
app_FLAGS     := $(app_INC) -I$(POISON_DIR)/engine $(PKG_CFLAGS)

$(foreach l,$(LAYERS),$(eval $(l)_SRCS := $(sort $(wildcard $($(l)_DIR)/*.c))))
$(foreach l,$(LAYERS),$(eval $(l)_HDRS := $(sort $(wildcard $($(l)_DIR)/*.h))))
$(foreach l,$(LAYERS),$(eval $(l)_OBJS := $($(l)_SRCS:%.c=$(BUILD)/%.o)))

POISON_STAMP := $(POISON_DIR)/.stamp
$(POISON_STAMP): src/layers.mk
	@rm -rf $(POISON_DIR)
	@for h in $(pure_POISON); do mkdir -p $(POISON_DIR)/pure/$$(dirname $$h); \
	  printf '#error "layer violation: <%s> is not for the pure layers (base, model, frames, formats); see src/layers.mk"\n' $$h \
	    >$(POISON_DIR)/pure/$$h; done
	@for h in $(ui_POISON); do mkdir -p $(POISON_DIR)/ui/$$(dirname $$h); \
	  printf '#error "layer violation: <%s> is not for ui/ (it sees base and model only); see src/layers.mk"\n' $$h \
	    >$(POISON_DIR)/ui/$$h; done
	@for h in $(engine_POISON); do mkdir -p $(POISON_DIR)/engine/$$(dirname $$h); \
	  printf '#error "layer violation: <%s> is for ui/ only; see src/layers.mk"\n' $$h \
	    >$(POISON_DIR)/engine/$$h; done
	@touch $@

define LAYER_RULE
$(BUILD)/$($(1)_DIR)/%.o: $($(1)_DIR)/%.c $(POISON_STAMP) | $(PKG_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_BASE) $$($(1)_FLAGS) -c -o $$@ $$<
endef
$(foreach l,$(LAYERS),$(eval $(call LAYER_RULE,$(l))))

PURE_OBJS := $(base_OBJS) $(model_OBJS) $(frames_OBJS) $(formats_OBJS)
PURE_SRCS := $(base_SRCS) $(model_SRCS) $(frames_SRCS) $(formats_SRCS)

# check-layers: every header compiles on its own with its layer's flags
# (so a header that reaches up a layer fails too), and a probe proves the
# fences stand: a pure file that includes curses or an engine header, and
# a UI file that includes libunwind, must each fail to compile.
.PHONY: check-layers
check-layers: $(POISON_STAMP) | $(PKG_STAMP)
	@set -e; fail=0; \
	for l in $(LAYERS); do \
	  case $$l in base) f='$(base_FLAGS)';; model) f='$(model_FLAGS)';; \
	    frames) f='$(frames_FLAGS)';; \
	    formats) f='$(formats_FLAGS)';; engine) f='$(engine_FLAGS)';; \
	    ui) f='$(ui_FLAGS)';; app) f='$(app_FLAGS)';; esac; \
	  for h in $$(ls $$(case $$l in ui) echo ui;; *) echo src/$$l;; esac)/*.h); do \
	    if ! $(CC) $(CFLAGS_BASE) $$f -fsyntax-only -x c $$h 2>$(BUILD)/layer.err; then \
	      echo "layer violation: $$h (layer $$l):"; head -3 $(BUILD)/layer.err; fail=1; fi; \
	  done; \
	done; \
	probe() { printf '#include %s\n' "$$2" >$(BUILD)/layer-probe.c; \
	  if $(CC) $(CFLAGS_BASE) $$1 -fsyntax-only $(BUILD)/layer-probe.c 2>/dev/null; then \
	    echo "fence down: $$3 may include $$2"; fail=1; fi; }; \
	probe '$(model_FLAGS)' '<curses.h>' model; \
	probe '$(formats_FLAGS)' '<libunwind.h>' formats; \
	probe '$(model_FLAGS)' '<sys/ptrace.h>' model; \
	probe '$(formats_FLAGS)' '<elfutils/libdwfl.h>' formats; \
	probe '$(model_FLAGS)' '"export.h"' model; \
	probe '$(formats_FLAGS)' '"collect.h"' formats; \
	probe '$(frames_FLAGS)' '<sys/ptrace.h>' frames; \
	probe '$(frames_FLAGS)' '"collect.h"' frames; \
	probe '$(frames_FLAGS)' '"export.h"' frames; \
	probe '$(formats_FLAGS)' '"pyread.h"' formats; \
	probe '$(ui_FLAGS)' '"collect.h"' ui; \
	probe '$(ui_FLAGS)' '"export.h"' ui; \
	probe '$(ui_FLAGS)' '<libunwind.h>' ui; \
	probe '$(engine_FLAGS)' '"view.h"' engine; \
	probe '$(engine_FLAGS)' '<curses.h>' engine; \
	probe '$(app_FLAGS)' '<ncurses.h>' app; \
	rm -f $(BUILD)/layer-probe.c $(BUILD)/layer.err; \
	[ $$fail = 0 ] && echo "layers ok: $(LAYERS)"
