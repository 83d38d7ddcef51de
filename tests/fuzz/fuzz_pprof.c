/* fuzz_pprof.c - libFuzzer target for the pprof reader (load_pprof); what it
 * loads goes through every exporter and the pprof round trip
 * (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(load_pprof, "fuzz.pb.gz", true, data, size);
}
