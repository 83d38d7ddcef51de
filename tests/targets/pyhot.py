# pyhot.py - the Python ground truth: three functions take 60%, 30% and
# 10% of the main thread's CPU, alternating every few milliseconds (6, 3
# and 1 ms of CPU time each round), run from module level for --cpu
# seconds of CPU time in all.
#
#   /usr/bin/python3 pyhot.py [--cpu SECONDS] [--log FILE]
#
# With --log it writes, at the end, its own record:
#   share NAME PERCENT     each function's share of the CPU time the
#                          three took (time.thread_time around each call)
#   switch NS NAME         every call's start, CLOCK_MONOTONIC ns
#                          (time.monotonic_ns), so a sample's time says
#                          which function ran: the accuracy harness
#                          (tests/tools/pyaccuracy) compares a sampler's
#                          Python leaf with it
import sys
import time

cpu = 2.0
log = None
args = sys.argv[1:]
while args:
    if args[0] == "--cpu":
        cpu = float(args[1])
    elif args[0] == "--log":
        log = args[1]
    args = args[2:]

clock = time.thread_time
now = time.monotonic_ns
switches = []
spent = {"py_sixty": 0.0, "py_thirty": 0.0, "py_ten": 0.0}


def py_sixty():
    end = clock() + 0.006
    while clock() < end:
        pass


def py_thirty():
    end = clock() + 0.003
    while clock() < end:
        pass


def py_ten():
    end = clock() + 0.001
    while clock() < end:
        pass


rounds = int(cpu / 0.010)
for _ in range(rounds):
    for f in (py_sixty, py_thirty, py_ten):
        switches.append((now(), f.__name__))
        t0 = clock()
        f()
        spent[f.__name__] += clock() - t0
switches.append((now(), "end"))

if log:
    total = sum(spent.values())
    with open(log, "w") as out:
        for name, s in spent.items():
            out.write("share %s %.2f\n" % (name, 100.0 * s / total))
        for t, name in switches:
            out.write("switch %d %s\n" % (t, name))
