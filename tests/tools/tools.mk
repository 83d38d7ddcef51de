# tests/tools/tools.mk - helper programs for the shell tests.
#
# Included by the top-level Makefile; builds $(TOOL_BINS) into
# $(BUILD)/tools/:
#   symtest        drives src/symbols/ (tests/symbols.t, and by hand:
#                  `symtest PID ADDR...`, `symtest --bench PID`)
#   symtarget      C code whose addresses and lines it prints itself
#   symtarget-cxx  the same for C++ (namespaces, templates, inlining)
#   timedgen       writes a pprof file whose samples carry times, from a
#                  text spec (the timeline and window fixtures)
#
# symtest is built like the engine (CFLAGS_BASE, SANITIZE), so `make asan`
# checks the symbolizer.  The targets are built with fixed flags and never
# with $(SANITIZE): what the test expects (inlining at -O2) must not change
# with OPT, and they stand in for the user's programs.

TOOLS_DIR := $(BUILD)/tools
TOOLS_SRC := tests/tools
TOOLS_MK  := $(TOOLS_SRC)/tools.mk
TOOL_BINS := $(TOOLS_DIR)/symtest $(TOOLS_DIR)/symtarget \
             $(TOOLS_DIR)/symtarget-cxx $(TOOLS_DIR)/timedgen
# The symbols room and what it sees below it (late_names needs the model,
# annot.c the disassembler).
SYMBOLIZER_OBJS := $(symbols_OBJS) $(disasm_OBJS) $(proc_OBJS) \
                   $(model_OBJS) $(base_OBJS)

$(TOOLS_DIR)/symtest: $(TOOLS_SRC)/symtest.c $(SYMBOLIZER_OBJS) $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) $(symbols_FLAGS) -o $@ $< $(SYMBOLIZER_OBJS) \
	  $(PKG_LIBS) -liberty -lstdc++ -lpthread -lm -lz

$(TOOLS_DIR)/symtarget: $(TOOLS_SRC)/symtarget.c $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -g -O2 -Wall -Wextra -o $@ $<

$(TOOLS_DIR)/symtarget-cxx: $(TOOLS_SRC)/symtarget_cxx.cc $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -g -O2 -Wall -Wextra -o $@ $<

$(TOOLS_DIR)/timedgen: $(TOOLS_SRC)/timedgen.c $(PURE_OBJS) $(TOOLS_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(formats_FLAGS) -o $@ $< $(PURE_OBJS) -lm -lz

.PHONY: tools
tools: $(TOOL_BINS)
