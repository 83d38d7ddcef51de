/* pyline.h - the current line of a CPython frame: its code object's
 * location table (co_linetable) decoded up to the instruction it runs.
 *
 * The table is PEP 626's as 3.11 encodes it (CPython's
 * Objects/locations.md; unchanged in 3.12 and 3.13): one entry per run of
 * code units, a first byte with bit 7 set, the entry's kind in bits 3-6
 * and its length in code units, less one, in bits 0-2; then varints of 6
 * bits per byte (bit 6: more), a signed one with its sign in bit 0.
 * Kinds: 15 no location, 14 long form (line delta, end line, columns), 13
 * line delta only, 10-12 the next 0-2 lines with two column bytes, 0-9
 * the same line with one column byte.  The line starts at co_firstlineno
 * and each entry adds its delta, as PyCode_Addr2Line reads it.
 *
 * The table is the target's bytes: decoding is bounded by its length and
 * by a varint's width, and a table that ends early gives "unknown".
 * Pure; any thread.  libc only.
 */
#ifndef SPROFTOP_PYLINE_H
#define SPROFTOP_PYLINE_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at code unit `unit` (the frame's
 * instruction pointer less the start of its bytecode, in 2-byte units)
 * in a code object whose table is tab[0..len) and whose first line is
 * firstlineno.  A unit below 0 (a frame that has not started) is its
 * first line.  0 when the table gives no line for it (a "no location"
 * entry, or the unit lies past the table's end). */
uint32_t pyline_find(const uint8_t *tab, size_t len, int32_t firstlineno,
                     int64_t unit);

#endif
