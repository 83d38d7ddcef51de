/* fuzz_racket.c - libFuzzer target for the Racket JSON reader
 * (load_racket): what it loads, a call graph, goes through every
 * exporter that takes one and the racket-json round trip
 * (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(load_racket, "fuzz.racket.json", false, data, size);
}
