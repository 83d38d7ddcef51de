/* fuzz_folded.c - libFuzzer target for the folded reader
 * (load_folded); what it loads goes through every exporter and the pprof
 * round trip (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(load_folded, "fuzz.folded", false, data, size);
}
