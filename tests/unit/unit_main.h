/* unit_main.h - the main() every cmocka unit test has: run the listed
 * tests, report in TAP for prove.
 *
 * Apart from fixture.h (which needs the formats' headers) so that the UI's
 * and the engine's unit tests, compiled with their own layers' include
 * paths, can use it too.
 */
#ifndef SPROFTOP_UNIT_MAIN_H
#define SPROFTOP_UNIT_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* UNIT_MAIN_GROUP(setup, teardown, cmocka_unit_test(t)...): main() running
 * the tests between the group's setup and teardown (NULL for none);
 * UNIT_MAIN(cmocka_unit_test(t)...) without them. */
#define UNIT_MAIN_GROUP(setup, teardown, ...)                               \
    int main(void)                                                          \
    {                                                                       \
        const struct CMUnitTest tests[] = { __VA_ARGS__ };                 \
                                                                            \
        cmocka_set_message_output(CM_OUTPUT_TAP);                           \
        return cmocka_run_group_tests(tests, setup, teardown);             \
    }
#define UNIT_MAIN(...) UNIT_MAIN_GROUP(NULL, NULL, __VA_ARGS__)

#endif
