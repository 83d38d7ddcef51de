# pyblock.py - Python threads blocked three ways, each in a function of
# its own, for --idle (tests/python.t): time.sleep, queue.Queue.get and a
# socket's recv.  Prints "ready" once all three wait, then stays so for
# argv[1] seconds (60 by default).
import queue
import socket
import sys
import threading
import time

HOLD = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
waiting = threading.Barrier(4)


def in_sleep():
    waiting.wait()
    time.sleep(HOLD)


def in_queue(q):
    waiting.wait()
    q.get(timeout=HOLD)


def in_recv(s):
    waiting.wait()
    s.settimeout(HOLD)
    s.recv(16)


q = queue.Queue()
a, b = socket.socketpair()
for target, args, name in ((in_sleep, (), "sleeper"), (in_queue, (q,), "getter"),
                           (in_recv, (a,), "receiver")):
    threading.Thread(target=target, args=args, name=name, daemon=True).start()
waiting.wait()
print("ready", flush=True)
time.sleep(HOLD)
