# A CPython workload that times itself: the main thread alternates phases
# (each a known leaf under a known caller) every SLICE seconds of its own
# CPU time, a second thread spins in its own function, and one phase
# recurses 1,000 deep. Each phase's CPU time (time.thread_time, the
# thread's own clock) is written to OUT as "name seconds" lines: the
# independent expectation record's shares are held to.
#
#   python3 phases.py OUT SECONDS [SLICE]
import os
import random
import sys
import threading
import time
import zlib

sys.setrecursionlimit(5000)
OUT, SECONDS = sys.argv[1], float(sys.argv[2])
SLICE = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
spent = {}


def timed(name, fn):
    t0 = time.thread_time()
    fn()
    spent[name] = spent.get(name, 0.0) + time.thread_time() - t0


def until(fn):
    """Run fn repeatedly for SLICE seconds of this thread's CPU time."""
    t0 = time.thread_time()
    while time.thread_time() - t0 < SLICE:
        fn()


def py_handler_a():  # pure Python leaf
    s = 0
    for i in range(2000):
        s += i * i
    return s


def py_handler_b():  # another pure Python leaf
    s = ""
    for i in range(300):
        s = str(i) + s[:50]
    return s


DATA = os.urandom(1 << 16)


def c_leaf():  # the time goes in zlib's C code
    zlib.compress(DATA, 6)


def deep_leaf():
    s = 0
    for i in range(2000):
        s ^= i
    return s


def recurse(n):
    if n == 0:
        return until(deep_leaf)
    return recurse(n - 1)


def caller_x():
    until(py_handler_a)


def caller_y():
    until(py_handler_b)


def caller_z():
    until(c_leaf)


def deep():
    recurse(1000)


def thread_spin():
    s = 0
    for i in range(2000):
        s += i
    return s


stop = False


def thread_main():
    t0 = time.thread_time()
    while not stop:
        thread_spin()
    spent["thread_main"] = time.thread_time() - t0


def main():
    global stop
    worker = threading.Thread(target=thread_main)
    worker.start()
    end = time.monotonic() + SECONDS
    # x twice as often as the others; each round of the plan in an order
    # drawn at random (seeded): a reader that lags behind the samples
    # cannot count one phase as the next one systematically
    plan = [("caller_x", caller_x), ("caller_x", caller_x), ("caller_y", caller_y),
            ("caller_z", caller_z), ("deep", deep)]
    order = random.Random(29)
    while time.monotonic() < end:
        order.shuffle(plan)
        for name, fn in plan:
            timed(name, fn)
    stop = True
    worker.join()
    with open(OUT, "w") as f:
        for name in sorted(spent):
            f.write("%s %.6f\n" % (name, spent[name]))


main()
