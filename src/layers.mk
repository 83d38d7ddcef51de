# src/layers.mk - the layers and rooms of sproftop, and what each may include.
#
# Included by the top-level Makefile.  Every layer is a folder; each is
# compiled with only the -I paths of what it may use, so including a
# header of a higher layer, or of another room's inside, is a compile
# error ("No such file").  System headers that a folder must not use
# (curses, ptrace, perf_event, libunwind, elfutils) are "poisoned": a
# folder of stand-in headers that #error is put first on its include path.
#
#   app      src/app/       CLI, batch mode, launch policy: sees everything
#   ui       ui/            curses views: base, model (and ui/)
#   formats  src/formats/   writers and readers: base, model (pure)
#   model    src/model/     the profile and its queries, the source
#                           interface: base (pure)
#   base     src/base/      containers, hashing, clock, strings (pure)
#
# The engine is not one layer but rooms, each fenced on its own:
#
#   collect  src/collect/   the live source: ingest -> fold -> profile, the
#                           live figures (tasks), --dump's printing.  libc
#                           only; sees model and the rooms below through
#                           their API headers only.
#   symbols  src/symbols/   symbolizer, symbol store, debuginfod fetcher,
#                           late names, JIT maps, a function's machine code
#                           (annot.c): libdw, debuginfod, libiberty
#                           (demangling); sees model, proc and disasm.
#                           Never the sampler.
#   disasm   src/disasm/    x86-64 code to text: capstone, and only here;
#                           sees base and model (annotate.h's kinds).
#   sample   src/sample/    the sampling interface (sampler.h for its
#                           callers, backend.h for its backends: the
#                           capabilities), the ingest buffer, the
#                           unwinder's interface (unwind.h), a histogram,
#                           the push of a sampled stack with its
#                           interpreter frames spliced in (stack_push.h).
#                           libc only; sees base and frames' API.  It
#                           names its backends only in sampler.c's
#                           registry of their tables.
#   unwind   src/sample/unwind/   the libunwind unwinder behind unwind.h
#   perf     src/sample/perf/     the perf_event backend: perf_event only,
#                                 never ptrace; sees proc, sample and
#                                 frames (--idle's reasons)
#   ptrace   src/sample/ptrace/   the ptrace backend (and --dump's
#                                 capture): ptrace only, never perf_event;
#                                 both backends see sample-backend_API
#   proc     src/proc/      a process seen from outside through /proc,
#                           without tracing it: facts, maps, launching,
#                           top's figures (taskstat).  libc only; sees base.
#   frames   src/frames/    frame sources beyond native user code: the
#                           kernel symbol table (/proc/kallsyms: ksyms.h),
#                           why a thread waits (offcpu_reason.h), and
#                           interpreter frames read from another process
#                           (issue 22: the bounded remote-memory reader,
#                           exported ELF symbols from memory, CPython's
#                           layouts, walk, code cache and line tables, the
#                           BPF program's twin of the walk in bpf/) and
#                           what both backends share to splice them into
#                           a stack (script_frames.c); issue 23 adds Ruby.
#                           libc only; sees base, model and proc: it
#                           reads frames and pushes none (sample's
#                           stack_push.c does); sample, the backends and
#                           collect see its API.
#
# A room shows the others only its API headers (ROOM_API below): they are
# linked into $(BUILD)/api/ROOM/, and a room that may see ROOM gets that
# folder on its path, never the room's own.  So `collect` can include
# symbols.h but not sym_dwarf.h, and no room but perf sees perf_int.h.
#
# Rooms that are libc only (LIBC_ROOMS) are poisoned against every
# library above: tests/unit/engine/ links them, with no live process.

ROOMS      := proc sample unwind perf ptrace disasm symbols collect frames
LIBC_ROOMS := proc sample collect frames
LAYERS     := base model formats $(ROOMS) ui app

base_DIR    := src/base
model_DIR   := src/model
formats_DIR := src/formats
proc_DIR    := src/proc
sample_DIR  := src/sample
unwind_DIR  := src/sample/unwind
perf_DIR    := src/sample/perf
ptrace_DIR  := src/sample/ptrace
disasm_DIR  := src/disasm
symbols_DIR := src/symbols
collect_DIR := src/collect
frames_DIR  := src/frames
ui_DIR      := ui
app_DIR     := src/app

# What a room shows the others.
proc_API    := maps.h target.h taskstat.h
sample_API  := sampler.h backend.h ingest.h unwind.h hist.h
# ...and what it shows its backends: what they implement and use, never
# the calls made above them (sampler.h), so no arrow runs back from a
# backend to the registry that lists it.
sample-backend_API := backend.h ingest.h unwind.h hist.h stack_push.h
disasm_API  := disasm.h
symbols_API := symbols.h sym_store.h dbgfetch.h late_names.h sym_preload.h annot.h
collect_API := collect.h dump.h
frames_API  := ksyms.h offcpu_reason.h script_frames.h script_lang.h \
               stackword.h pyread.h pylayout.h pywalk.h pybpf.h rbwalk.h \
               rbread.h rblayout.h
API_DIR     := $(BUILD)/api
api          = $(foreach r,$(1),-I$(API_DIR)/$(r))

base_INC    := -Isrc/base
model_INC   := $(base_INC) -Isrc/model
formats_INC := $(model_INC) -Isrc/formats
proc_INC    := $(base_INC) -I$(proc_DIR)
sample_INC  := $(base_INC) $(call api,frames) -I$(sample_DIR)
unwind_INC  := $(base_INC) $(call api,proc sample-backend) -I$(unwind_DIR)
perf_INC    := $(base_INC) $(call api,proc sample-backend frames) \
               -I$(perf_DIR)
ptrace_INC  := $(base_INC) $(call api,proc sample-backend frames) \
               -I$(ptrace_DIR)
disasm_INC  := $(model_INC) -I$(disasm_DIR)
symbols_INC := $(model_INC) $(call api,proc disasm) -I$(symbols_DIR)
collect_INC := $(model_INC) $(call api,proc sample symbols frames) \
               -I$(collect_DIR)
frames_INC  := $(model_INC) $(call api,proc) -I$(frames_DIR)
ui_INC      := $(model_INC) -Iui
app_INC     := $(formats_INC) \
               $(call api,proc sample symbols collect frames) -Iui -Isrc/app

# The system headers of each library; a folder is poisoned against those
# it may not use.
H_PTRACE := sys/ptrace.h linux/ptrace.h
H_PERF   := linux/perf_event.h
H_UNWIND := libunwind.h libunwind-ptrace.h libunwind-x86_64.h
H_DW     := elfutils/libdwfl.h elfutils/libdw.h elfutils/libdwelf.h \
            elfutils/debuginfod.h elfutils/version.h libelf.h gelf.h dwarf.h
H_CAPSTONE := capstone/capstone.h capstone.h
H_CURSES := curses.h ncurses.h ncursesw/curses.h ncursesw/ncurses.h \
            term.h panel.h
# libiberty's demangler: the symbols room's alone (sym_names.c)
H_IBERTY := libiberty/demangle.h libiberty/libiberty.h
H_ENGINE := $(H_PTRACE) $(H_PERF) $(H_UNWIND) $(H_DW) $(H_CAPSTONE) \
            $(H_IBERTY)

$(foreach l,base model formats $(LIBC_ROOMS),\
  $(eval $(l)_POISON := $(H_ENGINE) $(H_CURSES)))
unwind_POISON  := $(H_PTRACE) $(H_PERF) $(H_DW) $(H_CAPSTONE) $(H_IBERTY) \
                  $(H_CURSES)
perf_POISON    := $(H_PTRACE) $(H_UNWIND) $(H_DW) $(H_CAPSTONE) $(H_IBERTY) \
                  $(H_CURSES)
ptrace_POISON  := $(H_PERF) $(H_UNWIND) $(H_DW) $(H_CAPSTONE) $(H_IBERTY) \
                  $(H_CURSES)
disasm_POISON  := $(H_PTRACE) $(H_PERF) $(H_UNWIND) $(H_DW) $(H_IBERTY) \
                  $(H_CURSES)
symbols_POISON := $(H_PTRACE) $(H_PERF) $(H_UNWIND) $(H_CAPSTONE) \
                  $(H_CURSES)
ui_POISON      := $(H_ENGINE)
app_POISON     := $(H_PTRACE) $(H_PERF) $(H_CAPSTONE) $(H_IBERTY) $(H_CURSES)

# Which folders need the libraries' own flags (pkg-config).
PKG_LAYERS := unwind disasm symbols ui app
POISON_DIR := $(BUILD)/poison
$(foreach l,$(LAYERS),$(eval $(l)_FLAGS := $($(l)_INC) -I$(POISON_DIR)/$(l) \
  $(if $(filter $(l),$(PKG_LAYERS)),$$(PKG_CFLAGS))))

$(foreach l,$(LAYERS),$(eval $(l)_SRCS := $(sort $(wildcard $($(l)_DIR)/*.c))))
$(foreach l,$(LAYERS),$(eval $(l)_HDRS := $(sort $(wildcard $($(l)_DIR)/*.h))))
$(foreach l,$(LAYERS),$(eval $(l)_OBJS := $($(l)_SRCS:%.c=$(BUILD)/%.o)))

PURE_OBJS   := $(base_OBJS) $(model_OBJS) $(formats_OBJS)
PURE_SRCS   := $(base_SRCS) $(model_SRCS) $(formats_SRCS)
ENGINE_OBJS := $(foreach r,$(ROOMS),$($(r)_OBJS))
LIBC_ROOM_OBJS := $(foreach r,$(LIBC_ROOMS),$($(r)_OBJS))

# The poisoned stand-ins, and each room's API folder (links to its
# headers), remade whenever this file changes.
POISON_STAMP := $(POISON_DIR)/.stamp
$(POISON_STAMP): src/layers.mk
	@rm -rf $(POISON_DIR) $(API_DIR)
	@$(foreach l,$(LAYERS),for h in $($(l)_POISON); do \
	  mkdir -p $(POISON_DIR)/$(l)/$$(dirname $$h); \
	  printf '#error "layer violation: <%s> is not for $(l) ($($(l)_DIR)/); see src/layers.mk"\n' \
	    $$h >$(POISON_DIR)/$(l)/$$h; done;)
	@$(foreach r,$(ROOMS) sample-backend,mkdir -p $(API_DIR)/$(r); \
	  for h in $($(r)_API); do \
	  ln -s $(CURDIR)/$($(firstword $(subst -, ,$(r)))_DIR)/$$h $(API_DIR)/$(r)/$$h; \
	  done;)
	@touch $@

define LAYER_RULE
$(BUILD)/$($(1)_DIR)/%.o: $($(1)_DIR)/%.c $(POISON_STAMP) | $(PKG_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_BASE) $$($(1)_FLAGS) -c -o $$@ $$<
endef
$(foreach l,$(LAYERS),$(eval $(call LAYER_RULE,$(l))))

# check-layers: every header compiles on its own with its folder's flags
# (so a header that reaches up a layer, or into another room, fails too),
# and a probe proves each fence stands: each line below names a folder
# and an include that must fail to compile there.
LAYER_PROBES := \
  model:'<curses.h>' model:'<sys/ptrace.h>' model:'"export.h"' \
  model:'"sampler.h"' formats:'<libunwind.h>' formats:'<elfutils/libdwfl.h>' \
  formats:'"collect.h"' formats:'"sampler.h"' \
  ui:'"export.h"' ui:'<libunwind.h>' \
  proc:'<libunwind.h>' proc:'"sampler.h"' proc:'"symbols.h"' \
  sample:'<linux/perf_event.h>' sample:'<libunwind.h>' sample:'"maps.h"' \
  sample:'"perf_int.h"' sample:'"ptrace_int.h"' \
  unwind:'<sys/ptrace.h>' unwind:'<linux/perf_event.h>' \
  unwind:'<elfutils/libdwfl.h>' unwind:'"symbols.h"' unwind:'"sampler.h"' \
  perf:'<sys/ptrace.h>' perf:'"ptrace_int.h"' perf:'<libunwind.h>' \
  perf:'<elfutils/libdwfl.h>' perf:'"symbols.h"' \
  ptrace:'<linux/perf_event.h>' ptrace:'"perf_int.h"' ptrace:'<libunwind.h>' \
  ptrace:'<elfutils/libdwfl.h>' ptrace:'"symbols.h"' ptrace:'"sampler.h"' \
  perf:'"sampler.h"' \
  symbols:'"sampler.h"' symbols:'<libunwind.h>' symbols:'<sys/ptrace.h>' \
  symbols:'<linux/perf_event.h>' symbols:'<capstone/capstone.h>' \
  disasm:'<elfutils/libdwfl.h>' disasm:'<libunwind.h>' disasm:'"symbols.h"' \
  disasm:'"sym_store.h"' collect:'<capstone/capstone.h>' \
  app:'<libiberty/demangle.h>' collect:'<libiberty/demangle.h>' \
  collect:'<libunwind.h>' collect:'<elfutils/libdwfl.h>' collect:'<sys/ptrace.h>' \
  collect:'"sym_dwarf.h"' collect:'"perf_int.h"' collect:'"ptrace_int.h"' \
  frames:'<elfutils/libdwfl.h>' frames:'<libunwind.h>' frames:'<sys/ptrace.h>' \
  frames:'"sampler.h"' frames:'"symbols.h"' frames:'"perf_int.h"' \
  frames:'"ptrace_int.h"' frames:'"collect.h"' frames:'"export.h"' \
  frames:'<linux/perf_event.h>' frames:'"ingest.h"' frames:'"backend.h"' \
  frames:'"stack_push.h"' formats:'"pyread.h"' formats:'"ksyms.h"' \
  collect:'"rmem.h"' \
  app:'<ncurses.h>' app:'<sys/ptrace.h>' app:'"perf_int.h"' app:'"sym_dwarf.h"' \
  app:'<capstone/capstone.h>' app:'"disasm.h"'
# ...and every API header of every room is out of the UI's reach (but
# unwind.h: GCC has a header of that name), and the UI's headers out of
# every room's.
LAYER_PROBES += $(foreach r,$(ROOMS),\
  $(foreach h,$(filter-out unwind.h,$($(r)_API)),ui:'"$(h)"') \
  $(r):'"view.h"' $(r):'<curses.h>')

# Above the sampling interface nothing names a backend: in the code (not
# the comments) of these folders, "perf" and "ptrace" appear only in the
# list of the --sampler option's names (which starts with "auto").  What a
# backend can do, its refusals and its figures come from the interface.
ABOVE_INTERFACE := collect formats model ui app

# The checks compile headers alone: no dependency files (-MMD would drop
# an a-NAME.d for each into the current directory).
CHECK_CFLAGS = $(filter-out -MMD -MP,$(CFLAGS_BASE))

.PHONY: check-layers
check-layers: $(POISON_STAMP) | $(PKG_STAMP)
	@fail=0; \
	$(foreach l,$(LAYERS),for h in $($(l)_HDRS); do \
	  if ! $(CC) $(CHECK_CFLAGS) $($(l)_FLAGS) -fsyntax-only -x c $$h \
	      2>$(BUILD)/layer.err; then \
	    echo "layer violation: $$h ($(l)):"; head -3 $(BUILD)/layer.err; fail=1; fi; \
	done;) \
	probe() { printf '#include %s\n' "$$2" >$(BUILD)/layer-probe.c; \
	  if $(CC) $(CHECK_CFLAGS) $$1 -fsyntax-only $(BUILD)/layer-probe.c 2>/dev/null; then \
	    echo "fence down: $$3 may include $$2"; fail=1; fi; }; \
	$(foreach p,$(LAYER_PROBES),probe '$($(firstword $(subst :, ,$(p)))_FLAGS)' \
	  $(word 2,$(subst :, ,$(p))) $(firstword $(subst :, ,$(p)));) \
	for f in $(foreach l,$(ABOVE_INTERFACE),$($(l)_SRCS) $($(l)_HDRS)); do \
	  $(CC) -fpreprocessed -dD -E -P -x c $$f >$(BUILD)/layer.code || fail=1; \
	  if grep -iE 'perf|ptrace' $(BUILD)/layer.code | grep -v auto \
	      >$(BUILD)/layer.err; then \
	    echo "a backend named above the interface: $$f:"; \
	    head -3 $(BUILD)/layer.err; fail=1; fi; \
	done; \
	rm -f $(BUILD)/layer-probe.c $(BUILD)/layer.err $(BUILD)/layer.code; \
	[ $$fail = 0 ] && echo "layers ok: $(LAYERS) ($(words $(LAYER_PROBES)) probes; no backend named above the interface)"
