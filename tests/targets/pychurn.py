# pychurn.py - Python frames that change under a reader (tests/python.t):
# threads that start, run a few short calls and exit; code objects that
# are compiled, run and freed (exec of fresh source); generators and deep
# recursion popped at once.  Runs argv[1] seconds (2 by default), then
# prints "done".
import sys
import threading
import time

SECS = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0


def leaf(n):
    return sum(range(n))


def recurse(d):
    return leaf(50) if d == 0 else recurse(d - 1)


def short_life():
    # about 10 ms of CPU: long enough for a sampler to see the thread,
    # short enough that about fifty start and exit each second
    end = time.thread_time() + 0.01
    i = 0
    while time.thread_time() < end:
        recurse(i % 40)
        i += 1


def gen_pop():
    for _ in (x * 2 for x in range(200)):
        pass


def fresh_code(i):
    # a new code object each time, freed once the call returns
    src = "def churn_%d(k):\n    return sum(range(k))\nchurn_%d(300)\n" % (i, i)
    exec(compile(src, "<churn>", "exec"), {})


end = time.monotonic() + SECS
i = 0
while time.monotonic() < end:
    t = threading.Thread(target=short_life)
    t.start()
    gen_pop()
    fresh_code(i)
    t.join()
    i += 1
print("done", flush=True)
