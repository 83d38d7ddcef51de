# pypool.py - a multiprocessing pool whose workers (forked processes)
# spend their CPU in work(), for --children (tests/python.t).  Runs
# about argv[1] seconds of CPU in each of 2 workers (1.5 by default).
import multiprocessing
import sys
import time

CPU = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5


def work(n):
    end = time.thread_time() + CPU
    x = 0
    while time.thread_time() < end:
        x += n
    return x


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    with multiprocessing.Pool(2) as pool:
        print(sum(pool.map(work, [1, 2])), flush=True)
