/* rustnames.c - C code under Rust v0 symbol names (RFC 2603), built
 * without debug info, so sproftop names it from the symbol table.
 *
 *   usage: rustnames [SECONDS]
 *
 * main calls rustdemo::run, which calls rustdemo::inner::spin, the hot
 * leaf; their symbols are the mangled "_RNv..." a rustc -C
 * symbol-mangling-version=v0 build gives such functions.  It stands in
 * for a Rust program where rustc is not installed (tests/names_rust.t),
 * and, having no debug info, for a hot module that has none.  Runs
 * forever, or SECONDS.
 */
#include "common.h"

void spin(void) __asm__("_RNvNtCs1234_8rustdemo5inner4spin");
void run(void) __asm__("_RNvCs1234_8rustdemo3run");

TARGET_SPIN_FN(spin, 6364136223846793005ULL, 1442695040888963407ULL, 20000)

SP_FRAME void run(void)
{
    for (int i = 0; i < 4; i++)
        spin();
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "rustnames [SECONDS]");
    double deadline = target_deadline_arg("rustnames", argc, argv, 1);
    do
        run();
    while (!target_expired(deadline));
    return 0;
}
