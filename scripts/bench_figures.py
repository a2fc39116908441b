#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs/performance.md's figures, drawn from what one `make bench` measured (.build/bench.json,
scripts/bench_record.py) with Debian's matplotlib (python3-matplotlib; hence /usr/bin/python3):

- latency.svg: push → ack, each push of the steady runs as the raw-socket server timed it, beside
  each bare single-row commit of the same rows on the same disk (their distributions), with the
  devserver's and the transport's p50 and p99;
- idle.svg: the idle daemon's memory, CPU, wake-ups, disk syncs and thread creations, each
  against its budget, the wake-ups against the floor the heartbeat sets;
- ingest.svg: durable ingest against the bare batched insert of the same rows on the same disk,
  run by run, and their ratio, each against its target; the load generator only named;
- neighbours.svg: push → ack p99 beside each neighbour ÷ the p99 of the same round with nobody
  beside it, each round, against the targets: one baseline, 1×.

Each figure's footer names the record's commit, day and CPUs; a record of a tree with changes not
committed is marked so, in red, on every figure. The SVG carries no date of its own, so that
drawing the same record twice gives the same file. A figure whose rows the record lacks is left
as it was, and said so.

With --page, the page's generated blocks are written too (scripts/bench_page.py): the first
screen, the targets and the table. A page is only written from a full run of a committed tree:
a smoke run's record, a run of some sections only (--only) and, unless --allow-uncommitted (which
marks every figure and line), a tree with changes not committed are refused.

Usage: bench_figures.py RECORD.json DIRECTORY [--page docs/performance.md [--allow-uncommitted]]
"""
import json
import os
import re
import statistics
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

import bench_page  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "intrapush", "svg.fonttype": "none", "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False})
METADATA = {"Date": None, "Creator": "scripts/bench_figures.py"}
COLOURS = {"daemon": "#1f5fa8", "bare": "#8a8a8a", "other": "#d17a00", "third": "#3a8a3a", "target": "#c0392b"}
SECTIONS = ("ingest", "generator", "latency", "idle", "start", "fleet", "outbox", "gate", "neighbours", "guarantees")


def rows_with(record, prefix, section=None):
    return [row for row in record["rows"] if row["figure"].startswith(prefix) and row.get("samples") is not None
            and (section is None or row.get("section") == section)]


def row(record, prefix, contains=""):
    found = [r for r in rows_with(record, prefix) if contains in r["figure"]]
    return found[0] if found else None


def stamp(figure, record):
    """The footer: which run drew the figure; a tree with changes not committed, loudly, above it.
    Returns the height it takes, in inches."""
    note = f"measured by make bench on commit {record['commit']}, {record['date']}, {record['cpus']} CPUs"
    warnings = (["WITH CHANGES NOT COMMITTED: no commit reproduces this figure"] if record["uncommitted_changes"] else []) + \
               (["SMOKE RUN: tiny sizes"] if record["smoke"] else [])
    width = figure.get_size_inches()[0]
    figure.text(width - 0.05, 0.05, note, ha="right", va="bottom", fontsize=7, color="#666666",
                transform=figure.dpi_scale_trans)
    if warnings:
        figure.text(width - 0.05, 0.2, "; ".join(warnings), ha="right", va="bottom", fontsize=8, color=COLOURS["target"],
                    fontweight="bold", transform=figure.dpi_scale_trans)
    return 0.4 if warnings else 0.25


def save(figure, record, directory, name, legend=None):
    """Writes the figure with its footer, and `legend` (handles, labels) in a row above it."""
    footer = stamp(figure, record)
    height = figure.get_size_inches()[1]
    if legend:
        figure.legend(*legend, loc="lower left", bbox_to_anchor=(0.01, (footer + 0.02) / height), fontsize=7,
                      frameon=False, ncol=len(legend[0]))
    figure.tight_layout(rect=(0, (footer + (0.3 if legend else 0)) / height, 1, 1))
    figure.savefig(os.path.join(directory, name), metadata=METADATA)
    plt.close(figure)
    print(f"bench_figures: wrote {os.path.join(directory, name)}")


def cumulative(values):
    ordered = sorted(values)
    return ordered, [(index + 1) / len(ordered) for index in range(len(ordered))]


def latency(record, directory):
    bare, raw = row(record, "Bare SQLite commit"), row(record, "Latency from a raw-socket server")
    if not bare or not raw or not bare["samples"].get("each") or not raw["samples"].get("each"):
        return False
    figure, axes = plt.subplots(figsize=(7, 3.6))
    for samples, label, colour in ((raw["samples"]["each"], "push → ack (the daemon, from a raw-socket server)", "daemon"),
                                   (bare["samples"]["each"], "bare single-row commit of the same row, same disk", "bare")):
        xs, ys = cumulative(samples)
        axes.plot(xs, ys, color=COLOURS[colour], label=f"{label}: {len(xs):,} pushes", linewidth=1.4)
    marks = [("Latency p50 at 1,000", "Latency p99 at 1,000", "the devserver's p50 and p99", "other"),
             ("Transport only", None, "the transport alone, p50 and p99", "third")]
    for first, second, label, colour in marks:
        found = row(record, first)
        if not found:
            continue
        if second:
            p50s, p99s = found["samples"], (row(record, second) or {}).get("samples") or []
        else:
            p50s, p99s = found["samples"]["p50"], found["samples"]["p99"]
        for value, y in [(v, 0.5) for v in p50s] + [(v, 0.99) for v in p99s]:
            axes.plot([value], [y], marker="o", markersize=4, color=COLOURS[colour], linestyle="none")
        axes.plot([], [], marker="o", markersize=4, color=COLOURS[colour], linestyle="none", label=f"{label}, each run")
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axes.set_xlabel("milliseconds (log scale)")
    axes.set_ylabel("fraction of pushes at or below")
    axes.set_ylim(0, 1.01)
    axes.axhline(0.99, color="#cccccc", linewidth=0.6, zorder=0)
    axes.axhline(0.5, color="#cccccc", linewidth=0.6, zorder=0)
    axes.set_title("Push → ack at a steady 1,000 pushes/s, against the bare commit", loc="left")
    axes.legend(loc="lower right", fontsize=7, frameon=False)
    save(figure, record, directory, "latency.svg")
    return True


def target_line(axes, x, label, low=None, high=None, side="right"):
    """A target, drawn as a dashed red line across the axes (or from `low` to `high`), named at its
    top on `side` of it."""
    if low is None:
        axes.axvline(x, color=COLOURS["target"], linestyle="--", linewidth=1.1, zorder=3)
        axes.annotate(label, (x, 1), xycoords=("data", "axes fraction"), xytext=(3 if side == "right" else -3, -1),
                      textcoords="offset points", fontsize=7, color=COLOURS["target"], va="top",
                      ha="left" if side == "right" else "right")
    else:
        axes.plot([x, x], [low, high], color=COLOURS["target"], linestyle="--", linewidth=1.1, zorder=1)
        axes.annotate(label, (x, low), xytext=(3, 1), textcoords="offset points", fontsize=7, color=COLOURS["target"],
                      va="top")


def first_number(record, prefix):
    found = bench_page.find(record, prefix)
    numbers = bench_page.numbers(found)
    return bench_page.value(numbers[0]) if numbers else None


def idle(record, directory):
    """Each idle figure against its budget: one bar each, the budget a line."""
    read = {name: first_number(record, prefix) for name, prefix in (
        ("rss", "Idle memory: VmRSS"), ("anon", "Idle memory: RssAnon"), ("cpu", "Idle CPU"),
        ("wakes", "Idle wake-ups"), ("syncs", "Idle disk syncs"), ("threads", "Idle thread creations"))}
    if None in read.values():
        return False
    method = (bench_page.find(record, "Idle memory: VmRSS") or {}).get("method", "")
    heartbeat = re.search(r"heartbeat ([\d.]+) s", method)
    panels = [("memory, MiB", [(read["anon"], "daemon", f"its own {read['anon']:g}"), (read["rss"] - read["anon"], "bare", "binary, libraries")],
               [(24, "≤ 24 MiB in all"), (4, "≤ 4 MiB its own")], f"{read['rss']:g} MiB"),
              ("CPU, ms a minute", [(read["cpu"], "daemon", "")], [(5, "≤ 5 ms")], f"{read['cpu']:g} ms"),
              ("wake-ups a minute", [(read["wakes"], "daemon", "")], [(14, "≤ 14")], f"{read['wakes']:.0f}"),
              ("disk syncs and\nthread creations a minute", [(read["syncs"] + read["threads"], "daemon", "")], [(0, "0")],
               f"syncs {read['syncs']:.0f}, thread creations {read['threads']:.0f}")]
    figure, all_axes = plt.subplots(len(panels), 1, figsize=(7, 3.8))
    for axes, (title, parts, budgets, text) in zip(all_axes, panels):
        left = 0
        for amount, colour, label in parts:
            axes.barh([0], [amount], left=left, color=COLOURS[colour], height=0.5)
            if label:
                axes.annotate(label, (left + amount / 2, -0.25), xytext=(0, -2), textcoords="offset points", fontsize=7,
                              ha="center", va="top", color=COLOURS[colour])
            left += amount
        axes.annotate(text, (left, 0), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
        for budget, label in budgets:
            target_line(axes, budget, label)
        if title.startswith("wake") and heartbeat:
            floor = 2 * 60 / float(heartbeat.group(1))
            axes.axvline(floor, color="#555555", linestyle=":", linewidth=1.1, zorder=3)
            axes.annotate(f"floor: 2 per heartbeat of {heartbeat.group(1)} s", (floor, 0), xycoords=("data", "axes fraction"),
                          xytext=(-3, 1), textcoords="offset points", fontsize=7, color="#555555", ha="right", va="bottom")
        highest = max(left, max(budget for budget, _ in budgets))
        axes.set_xlim(0, highest * 1.35 if highest else 1)
        if not highest:
            axes.set_xticks([0])
        axes.set_ylim(-0.75, 0.7)
        axes.set_yticks([])
        axes.set_ylabel(title, rotation=0, ha="right", va="center", fontsize=8)
        axes.spines["left"].set_visible(False)
    all_axes[0].set_title("Idle and connected: what the daemon costs while it waits, against its budgets", loc="left",
                          fontsize=9)
    save(figure, record, directory, "idle.svg")
    return True


def ingest(record, directory):
    """The daemon against the bare batched insert of the same rows on the same disk, run by run,
    and their ratio; the targets as lines. The load generator, far faster, is only named, so that
    it does not set the axis."""
    empty, bare = row(record, "Durable ingest, empty DB"), row(record, "Bare batched insert")
    full = row(record, "Durable ingest, ", "-row DB")
    if not empty or not bare or len(empty["samples"]) != len(bare["samples"]):
        return False
    runs = range(1, len(empty["samples"]) + 1)
    figure, (left, right) = plt.subplots(1, 2, figsize=(7.5, 2.6 + 0.3 * len(runs)),
                                         gridspec_kw={"width_ratios": (2.2, 1)}, sharey=True)
    for run, daemon, batched in zip(runs, empty["samples"], bare["samples"]):
        left.plot([daemon, batched], [run, run], color="#cccccc", linewidth=2, zorder=1)
    left.plot(bare["samples"], runs, "o", color=COLOURS["bare"], label="bare batched insert, same rows, same disk")
    left.plot(empty["samples"], runs, "o", color=COLOURS["daemon"], label="the daemon, empty database")
    if full and len(full["samples"]) == len(runs):
        rows = full["figure"].split(", ")[-1].replace("-row DB", "")
        left.plot(full["samples"], runs, "o", mfc="none", color=COLOURS["daemon"], label=f"the daemon, {rows} rows stored")
    highest = max(empty["samples"] + bare["samples"] + (full["samples"] if full else []))
    left.set_xlim(0, max(highest, 50_000) * 1.15)
    target_line(left, 50_000, "target ≥ 50,000/s")
    left.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value / 1000:,.0f}k"))
    burst = re.search(r"([\d,]+)-push burst", empty["method"] or "")
    left.set_xlabel(f"pushes a second, committed and acknowledged\n({burst.group(1) if burst else 'one'}-push bursts)")
    left.set_yticks(list(runs), [f"run {run}" for run in runs])
    left.set_ylim(len(runs) + 0.7, 0.3)
    ratios = [daemon / batched for daemon, batched in zip(empty["samples"], bare["samples"])]
    right.plot(ratios, runs, "o", color=COLOURS["daemon"])
    right.axvline(1, color=COLOURS["bare"], linewidth=1)
    right.annotate("= the bare insert", (1, 1), xycoords=("data", "axes fraction"), xytext=(3, -12),
                   textcoords="offset points", fontsize=7, color="#555555", va="top")
    target_line(right, 0.9, "target ≥ 0.9×", side="left")
    right.set_xlim(0, max(1.3, max(ratios) * 1.1))
    right.set_xlabel("the daemon ÷ the bare insert,\nsame run")
    generator = row(record, "Load generator alone")
    title = "Durable ingest against the bare batched insert of the same rows, each run"
    if generator:
        title += (f"\n(the load generator alone, which stores nothing, sends {statistics.median(generator['samples']):,.0f}/s: "
                  f"not drawn, it is no limit)")
    figure.suptitle(title, x=0.01, ha="left", fontsize=9)
    save(figure, record, directory, "ingest.svg", legend=left.get_legend_handles_labels())
    return True


# Each neighbour: the row of its rounds, the row of the quiet rounds beside them, and its target.
NEIGHBOURS = [("Neighbours: push → ack beside", "oneway marks", "Neighbours: quiet push → ack p99 / max", 2.0),
              ("Neighbours: push → ack beside", "mark of all", "Neighbours: quiet push → ack p99 / max", 2.0),
              ("Neighbours: push → ack beside", "four searches", "Neighbours: quiet push → ack p99 / max, ", 2.0),
              ("Push → ack p99 beside a reader's", "", "Push → ack p99, no reader", 1.5)]


def neighbours(record, directory):
    """Push → ack p99 beside each neighbour ÷ the same round's p99 with nobody beside it: one
    baseline (1×) for every neighbour, each round a dot, the targets as lines."""
    series = []
    for start, contains, quiet_start, target in NEIGHBOURS:
        beside = row(record, start, contains)
        quiet = next((r for r in rows_with(record, quiet_start) if r["figure"] == quiet_start.rstrip(", ")
                      or (quiet_start.endswith(", ") and r["figure"].startswith(quiet_start))), None)
        if not beside or not quiet or len(beside["samples"]) != len(quiet["samples"]):
            continue
        ratios = [value / alone for value, alone in zip(beside["samples"], quiet["samples"])]
        label = beside["figure"].replace("Neighbours: push → ack beside ", "").replace("Push → ack p99 beside ", "")
        label = label.replace("`", "")
        worst = bench_page.numbers(bench_page.find(record, beside["figure"]), 2)
        series.append((label, ratios, target, f"; slowest push {worst[1]} ms (≤ 100)" if len(worst) > 1 else ""))
    if len(series) < 2:
        return False
    figure, axes = plt.subplots(figsize=(8.5, 1.6 + 0.5 * len(series)))
    for index, (label, ratios, target, note) in enumerate(series):
        axes.plot(ratios, [index] * len(ratios), "o", color=COLOURS["other"], alpha=0.8, markersize=5)
        median = statistics.median(ratios)
        axes.plot([median, median], [index - 0.25, index + 0.25], color=COLOURS["other"], linewidth=2.2)
        axes.annotate(f"median {median:.2f}×{note}", (1.01, index), xycoords=("axes fraction", "data"), fontsize=7,
                      va="center", color=COLOURS["other"])
        target_line(axes, target, f"≤ {target:g}×", index - 0.4, index + 0.4)
    axes.axvline(1, color=COLOURS["bare"], linewidth=1.2, zorder=0)
    axes.annotate("1× = the same round with nobody beside", (1, 1), xycoords=("data", "axes fraction"),
                  xytext=(3, 2), textcoords="offset points", fontsize=7, color="#555555", ha="left", va="bottom")
    highest = max(max(ratios) for _, ratios, _, _ in series)
    axes.set_xlim(0, max(2.3, highest * 1.5))
    axes.set_yticks(range(len(series)), [label for label, *_ in series], fontsize=8)
    axes.set_ylim(len(series) - 0.5, -0.6)
    axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}×"))
    axes.set_xlabel("push → ack p99 at 1,000 pushes/s ÷ the same round's p99 with nobody beside\n(a dot for each round, "
                    "a bar at their median)")
    axes.set_title("Pushes beside other people's work on the host", loc="left", pad=14)
    save(figure, record, directory, "neighbours.svg")
    return True


def refusal(record, allow_uncommitted):
    """Why the page may not be written from this record, or None."""
    if record["smoke"]:
        return "a smoke run's figures are no figures for the page"
    missing = [section for section in SECTIONS if not any(r["section"] == section for r in record["rows"])]
    if missing:
        return (f"the record has no {', '.join(missing)} (a run with --only): the page and its figures are one run's, "
                f"left as they were")
    if record["uncommitted_changes"] and not allow_uncommitted:
        return (f"the record was made on {record['commit']} with changes not committed, which no commit reproduces: "
                f"commit, and run make bench again (or pass --allow-uncommitted to publish it marked so)")
    return None


def main():
    arguments = sys.argv[1:]
    page, allow_uncommitted = None, "--allow-uncommitted" in arguments
    arguments = [argument for argument in arguments if argument != "--allow-uncommitted"]
    if "--page" in arguments:
        index = arguments.index("--page")
        page = arguments[index + 1]
        del arguments[index:index + 2]
    if len(arguments) != 2:
        sys.exit(__doc__)
    with open(arguments[0]) as file:
        record = json.load(file)
    refused = page and refusal(record, allow_uncommitted)
    if refused and "--only" in refused:
        print(f"bench_figures: not written: {refused}")  # not a failure of make bench --only
        return
    if refused:
        sys.exit(f"bench_figures: not written: {refused}")
    if record["uncommitted_changes"]:
        print(f"bench_figures: the record was made on {record['commit']} with changes not committed: so marked")
    os.makedirs(arguments[1], exist_ok=True)
    drawn = {f"{draw.__name__}.svg" for draw in (latency, idle, ingest, neighbours) if draw(record, arguments[1])}
    missing = [name for name in ("latency.svg", "idle.svg", "ingest.svg", "neighbours.svg") if name not in drawn]
    if missing:
        print(f"bench_figures: the record has not the rows of {', '.join(missing)}: left as it was")
    if page:
        bench_page.rewrite(record, page, drawn, arguments[1])


if __name__ == "__main__":
    main()
