# pysleepers.py - a Python thread pool that churns: four threads at a
# time start, sleep 10 ms in nap() and exit, for argv[1] seconds (tests/
# perf_idle_pythreads.t).  Each thread leaves the CPU inside Python code,
# so under --idle the sampler keeps its Python stack for the stretch, and
# then the thread is gone.  Prints "ready" at the start and "done" at the
# end.
import sys
import threading
import time

end = time.monotonic() + float(sys.argv[1])
print("ready", flush=True)


def nap():
    time.sleep(0.01)


while time.monotonic() < end:
    pool = [threading.Thread(target=nap) for _ in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
print("done", flush=True)
