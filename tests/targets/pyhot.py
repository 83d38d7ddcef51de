# pyhot.py - the Python ground truth: three functions take 60%, 30% and
# 10% of the main thread's CPU, alternating every few milliseconds (6, 3
# and 1 ms of CPU time each round on average), run from module level for
# --cpu seconds of CPU time in all.  Each call's length varies at random
# (0.5 to 1.5 times its mean): a fixed 10 ms round would be in step with
# a sampler's fixed period (perf samples every 5.025 ms of CPU time at
# 199 Hz, so the same phases of the round would be sampled again and
# again).
#
#   /usr/bin/python3 pyhot.py [--cpu SECONDS] [--log FILE]
#
# It prints "ready" as it starts its calls.  After its calls (and its log)
# it waits half a second before it exits: a sampler that resolves code
# objects when it drains its samples (the perf backend, up to 200 ms
# later) finds them still alive.  An interpreter that exits sooner frees
# them first, and the samples of its last drain keep their native frames
# (counted as unreadable: README's "Python functions").
#
# With --log it writes, at the end, its own record:
#   share NAME PERCENT     each function's share of the CPU time the
#                          three took (time.thread_time around each call)
#   switch NS NAME         every call's start, CLOCK_MONOTONIC ns
#                          (time.monotonic_ns), so a sample's time says
#                          which function ran: the accuracy harness
#                          (tests/tools/pyaccuracy) compares a sampler's
#                          Python leaf with it
import random
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


def py_sixty(t):
    end = clock() + t
    while clock() < end:
        pass


def py_thirty(t):
    end = clock() + t
    while clock() < end:
        pass


def py_ten(t):
    end = clock() + t
    while clock() < end:
        pass


jitter = random.Random(19).uniform


rounds = int(cpu / 0.010)
print("ready", flush=True)
for _ in range(rounds):
    for f, mean in ((py_sixty, 0.006), (py_thirty, 0.003), (py_ten, 0.001)):
        t = mean * jitter(0.5, 1.5)
        switches.append((now(), f.__name__))
        t0 = clock()
        f(t)
        spent[f.__name__] += clock() - t0
switches.append((now(), "end"))

if log:
    total = sum(spent.values())
    with open(log, "w") as out:
        for name, s in spent.items():
            out.write("share %s %.2f\n" % (name, 100.0 * s / total))
        for t, name in switches:
            out.write("switch %d %s\n" % (t, name))

# the last drain's code objects still alive (see the top)
time.sleep(0.5)
