# tests/tools/tools.mk - helper programs for the shell tests.
#
# Included by the top-level Makefile; builds $(TOOL_BINS) into
# $(BUILD)/tools/:
#   symtest        drives src/symbols/ (tests/symbols.t, and by hand:
#                  `symtest PID ADDR...`, `symtest --bench PID`)
#   symtarget      C code whose addresses and lines it prints itself
#   symtarget-cxx  the same for C++ (namespaces, templates, inlining)
#   symtarget-ibt  symtarget built with IBT (-fcf-protection=full, -z
#                  ibtplt): its PLT stubs are in .plt.sec
#   timedgen       writes a pprof file whose samples carry times, from a
#                  text spec (the timeline and window fixtures)
#   pystack        drives the interpreter frame readers (src/frames/
#                  script_lang.h: CPython, CRuby): a live process's Python
#                  or Ruby stacks, or a captured image
#   pyaccuracy     runs a sampler on tests/targets/pyhot.py and says how
#                  often its Python leaf is the function the target's own
#                  log says ran at that moment
#
# symtest is built like the engine (CFLAGS_BASE, SANITIZE), so `make asan`
# checks the symbolizer.  The targets are built with fixed flags and never
# with $(SANITIZE): what the test expects (inlining at -O2) must not change
# with OPT, and they stand in for the user's programs.

TOOLS_DIR := $(BUILD)/tools
TOOLS_SRC := tests/tools
TOOLS_MK  := $(TOOLS_SRC)/tools.mk
TOOL_BINS := $(TOOLS_DIR)/symtest $(TOOLS_DIR)/symtarget \
             $(TOOLS_DIR)/symtarget-cxx $(TOOLS_DIR)/symtarget-ibt \
             $(TOOLS_DIR)/timedgen \
             $(TOOLS_DIR)/pystack $(TOOLS_DIR)/pyaccuracy
# The symbols room and what it sees below it (late_names needs the model,
# annot.c the disassembler).
SYMBOLIZER_OBJS := $(symbols_OBJS) $(disasm_OBJS) $(proc_OBJS) \
                   $(model_OBJS) $(base_OBJS)
# The CPython reader without script_frames.c (which pushes to the ingest
# buffer), and the maps it reads a process's through.
PYREADER_OBJS := $(filter-out %/script_frames.o,$(frames_OBJS)) \
                 $(BUILD)/$(proc_DIR)/maps.o $(base_OBJS)

$(TOOLS_DIR)/symtest: $(TOOLS_SRC)/symtest.c $(SYMBOLIZER_OBJS) $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) $(symbols_FLAGS) -o $@ $< $(SYMBOLIZER_OBJS) \
	  $(PKG_LIBS) -liberty -lstdc++ -lpthread -lm -lz

$(TOOLS_DIR)/symtarget: $(TOOLS_SRC)/symtarget.c $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -g -O2 -Wall -Wextra -o $@ $<

$(TOOLS_DIR)/symtarget-ibt: $(TOOLS_SRC)/symtarget.c $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -g -O2 -Wall -Wextra \
	  -fcf-protection=full -Wl,-z,ibtplt -o $@ $<

$(TOOLS_DIR)/symtarget-cxx: $(TOOLS_SRC)/symtarget_cxx.cc $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -g -O2 -Wall -Wextra -o $@ $<

$(TOOLS_DIR)/timedgen: $(TOOLS_SRC)/timedgen.c $(PURE_OBJS) $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(formats_FLAGS) -o $@ $< $(PURE_OBJS) -lm -lz

$(TOOLS_DIR)/pystack: $(TOOLS_SRC)/pystack.c tests/fuzz/pyimage.h \
		$(PYREADER_OBJS) $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(frames_FLAGS) -Itests/fuzz -o $@ $< \
	  $(PYREADER_OBJS) -lm -lz

# pyaccuracy runs a sampler as the collector does, through sampler.h.
$(TOOLS_DIR)/pyaccuracy: $(TOOLS_SRC)/pyaccuracy.c $(ENGINE_OBJS) $(PURE_OBJS) \
		$(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(collect_FLAGS) -o $@ $< \
	  $(ENGINE_OBJS) $(PURE_OBJS) $(PKG_LIBS) $(LIBS_EXTRA)

.PHONY: tools
tools: $(TOOL_BINS)
