# pystacks.py - Python threads that hold still in known stacks, for the
# frame reader's tests (tests/unit/test_pyframes.c replays images captured
# from it with tests/tools/pystack --capture; tests/python.t reads it
# live).  Prints "ready" once both threads are in place, then sleeps
# until killed (or for argv[1] seconds, 60 by default).
#
#   main:   <module> -> main -> Outer.Inner.méthode -> 函数 -> f𠀀
#           -> sorted() (C) -> slow_key (an entry frame) -> time.sleep
#   worker: Thread._bootstrap ... run -> consume -> gen (a generator)
#           -> time.sleep
# The names cover str kinds 1 (ASCII, Latin-1), 2 and 4.
import sys
import threading
import time

HOLD = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
ready = threading.Event()


def gen():
    while True:
        ready.set()
        time.sleep(HOLD)
        yield 1


def consume():
    for _ in gen():
        pass


def slow_key(x):
    if x == 2:
        print("ready", flush=True)
        time.sleep(HOLD)
    return x


def f𠀀():
    return sorted([3, 2, 1], key=slow_key)


def 函数():
    return f𠀀()


class Outer:
    class Inner:
        def méthode(self):
            return 函数()


def main():
    threading.Thread(target=consume, name="worker", daemon=True).start()
    ready.wait()
    Outer.Inner().méthode()


main()
