/* libuser.c - a program linked with a library of its own directory.
 *
 *   usage: libuser [SECONDS]
 *
 * Spins in a_spin of libA.so (dlswap's library, dlswap_lib.c), which the
 * dynamic loader finds through this program's DT_RUNPATH "$ORIGIN", not
 * in a system directory: tests/engine_launch.t checks that what sproftop
 * loads before it launches a command (sym_preload.h) follows the same
 * search.  Without SECONDS, 1 s.
 */
#include "common.h"

void a_spin(double until);

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "libuser [SECONDS]");
    double seconds = argc > 1 ? target_parse_seconds("libuser", argv[1]) : 1;
    a_spin(target_now() + seconds);
    return 0;
}
