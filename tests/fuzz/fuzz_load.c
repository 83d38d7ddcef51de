/* fuzz_load.c - libFuzzer target for load_buffer: content sniffing picks
 * the reader, as for sproftop -i FILE; then every exporter and the pprof
 * round trip on what it loaded (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(load_buffer, "fuzz-input", false, data, size);
}
