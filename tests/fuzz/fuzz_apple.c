/* fuzz_apple.c - libFuzzer target for the Apple Sampler reader
 * (load_apple); what it loads goes through every exporter and the
 * pprof round trip (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(load_apple, "fuzz.sampler", false, data, size);
}
