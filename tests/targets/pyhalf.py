# pyhalf.py - half spinning, half asleep, in Python functions of their
# own, for --idle (tests/python.t): each round spins about 20 ms of CPU
# in spinner() and sleeps 20 ms in sleeper().  Prints "ready", then runs
# argv[1] seconds (60 by default).
import sys
import time

SECS = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0


def spinner():
    end = time.thread_time() + 0.02
    while time.thread_time() < end:
        pass


def sleeper():
    time.sleep(0.02)


print("ready", flush=True)
end = time.monotonic() + SECS
while time.monotonic() < end:
    spinner()
    sleeper()
