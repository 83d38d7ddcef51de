# pyspin.py - benchmark target: one Python thread doing fixed units of
# work 12 Python frames deep (about 60 us each), counting them in slot 0
# of the progress file (tests/bench/progress.h's layout), which the
# driver reads without stopping it.
#
#   /usr/bin/python3 pyspin.py PROGRESS_FILE
import mmap
import os
import struct
import sys

SLOTS, SLOT = 128, 64
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, SLOTS * SLOT)
slots = mmap.mmap(fd, SLOTS * SLOT)


def hot():
    x = 0
    for i in range(1500):
        x += i
    return x


def level(n):
    return hot() if n == 0 else level(n - 1)


count = 0
while True:
    level(10)
    count += 1
    struct.pack_into("<Q", slots, 0, count)
