/* fuzz_speedscope.c - libFuzzer target for the speedscope JSON reader
 * (load_speedscope, and the JSON indexer under it); what it loads goes
 * through every exporter and the pprof round trip (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(load_speedscope, "fuzz.json", false, data, size);
}
