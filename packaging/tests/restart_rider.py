#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A reader riding through a restart of the daemon, for the system test: runs `intrapush count`
over and over until the file STOP exists, and prints how many calls it made, how many failed,
the longest one in milliseconds, and the first failure's message. As any user; standard library.

Usage: restart_rider.py STOP
"""
import os
import subprocess
import sys
import time


def main():
    stop = sys.argv[1]
    calls = failures = 0
    longest = 0.0
    first_failure = ""
    while not os.path.exists(stop):
        started = time.monotonic()
        result = subprocess.run(["intrapush", "count"], capture_output=True, text=True)
        longest = max(longest, time.monotonic() - started)
        calls += 1
        if result.returncode != 0:
            failures += 1
            first_failure = first_failure or f"exit {result.returncode}: {result.stderr.strip()}"
    print(f"calls {calls} failures {failures} longest_ms {longest * 1000:.0f} {first_failure}", flush=True)


if __name__ == "__main__":
    main()
