# pyexec.py - code that lives for less than a drain (tests/python.t): a
# loop compiles, runs and drops a new function each time, alpha seven
# times in ten and omega three (omega does a tenth of alpha's work), each
# in file "<pyexec>".  Its code objects are freed within a millisecond of
# their samples.  Prints "ready", runs argv[1] seconds (3 by default),
# then prints "done N" (N: functions run).
import sys
import time

SECS = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
SRC = {
    "alpha": "def alpha(n):\n    s = 0\n    for i in range(n):\n"
             "        s += i\n    return s\nalpha(%d)\n",
    "omega": "def omega(n):\n    s = 0\n    for i in range(n):\n"
             "        s += i\n    return s\nomega(%d)\n",
}
WORK = {"alpha": 20000, "omega": 2000}

print("ready", flush=True)
end = time.monotonic() + SECS
k = 0
while time.monotonic() < end:
    name = "alpha" if k % 10 < 7 else "omega"
    exec(compile(SRC[name] % WORK[name], "<pyexec>", "exec"), {})
    k += 1
print("done", k, flush=True)
