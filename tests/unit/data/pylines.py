# pylines.py - writes pylines.txt: location tables of real code objects
# and the line CPython itself gives each instruction (co_lines), for
# tests/unit/test_pyframes.c.  Run with Debian's /usr/bin/python3 (3.11):
#   /usr/bin/python3 tests/unit/data/pylines.py > tests/unit/data/pylines.txt
import argparse, json.decoder, textwrap, types, sys

def codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)

mods = [json.decoder, textwrap, argparse]
print("# CPython %s: firstlineno, linetable (hex), code units; then "
      "'start end line' per range (units; line 0: none)" %
      sys.version.split()[0])
n = 0
for m in mods:
    src = open(m.__file__).read()
    for co in codes(compile(src, m.__file__, "exec")):
        units = len(co.co_code) // 2
        if units > 400:  # keep the fixture small
            continue
        print("F %d %s %d %s" % (co.co_firstlineno, co.co_linetable.hex(),
                                 units, co.co_qualname))
        for start, end, line in co.co_lines():
            print("R %d %d %d" % (start // 2, end // 2, line or 0))
        n += 1
        if n >= 200:
            sys.exit(0)
