/* fuzz_load.c - libFuzzer target for load_buffer: content sniffing picks
 * the reader, as for sproftop -i FILE; then every exporter and the pprof
 * round trip on what it loaded (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    struct profile *p = load_buffer((const char *)data, size, "fuzz-input",
                                    err, sizeof(err));

    fuzz_check_error(p, err);
    if (p) {
        fuzz_export_all(p);
        fuzz_pprof_fixed_point(p, false);
    }
    profile_free(p);
    return 0;
}
