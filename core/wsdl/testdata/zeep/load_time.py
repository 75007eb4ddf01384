"""Time zeep loading a WSDL file: the CPU time of each of RUNS loads in one
process, and the median, minimum and maximum.

Usage: load_time.py WSDL_FILE [RUNS]
"""
import statistics
import sys
import time

import zeep


def main():
    path, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
    cpu = []
    for _ in range(runs):
        t = time.process_time()
        zeep.Client(path)
        cpu.append(time.process_time() - t)
    print("zeep load of %s, %d runs: CPU median %.3f s, min %.3f s, max %.3f s" % (path, runs, statistics.median(cpu), min(cpu), max(cpu)))


if __name__ == "__main__":
    main()
