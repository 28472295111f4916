"""The timing rule the Python peers of bench/ share with the C++ benches (bench_timing.h):
the best wall time of `repeats` runs, after one untimed warm-up run unless warm_up is False."""
import time


def best_seconds(repeats, run, warm_up=True):
    if warm_up:
        run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
