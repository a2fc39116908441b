# SPDX-License-Identifier: Apache-2.0
"""What a `make bench` measured, as .build/bench.json beside its table (.build/bench.md): every row
with its section, values and samples, the commit it ran on and the machine. docs/performance.md's
figures are drawn from it (scripts/bench_figures.py), so that they describe the run they came
from.
"""
import datetime
import json
import os
import subprocess

from bench_support import ROOT


def git(*arguments):
    try:
        return subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def write_record(path, rows, options, seconds):
    record = {
        "commit": git("rev-parse", "--short=7", "HEAD"),
        # A tree with changes not committed is not the commit it names.
        "uncommitted_changes": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "load_average_at_end": round(os.getloadavg()[0], 2),
        "seconds": round(seconds),
        "smoke": bool(options.smoke),
        "rows": [{
            "section": row.section, "figure": row.figure, "target": row.target, "method": row.method,
            "values": list(row.values) if row.values else None, "met": row.met, "error": row.error,
            "samples": row.samples,
        } for row in rows],
    }
    with open(path, "w") as file:
        json.dump(record, file)
