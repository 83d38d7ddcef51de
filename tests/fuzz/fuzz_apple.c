/* fuzz_sampler.c - libFuzzer target for the sampler reader
 * (load_sampler); what it loads goes through every exporter and the
 * pprof round trip (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    struct profile *p = load_sampler((const char *)data, size, "fuzz.sampler",
                                     err, sizeof(err));

    fuzz_check_error(p, err);
    if (p) {
        fuzz_export_all(p);
        fuzz_pprof_fixed_point(p, false);
    }
    profile_free(p);
    return 0;
}
