#!/usr/bin/python3
"""docs/performance.md's figures, drawn from what one `make bench` measured (.build/bench.json,
scripts/bench_record.py) with Debian's matplotlib (python3-matplotlib; hence /usr/bin/python3):

- latency.svg: push → ack, each push of the steady runs as the raw-socket server timed it, beside
  each bare single-row commit of the same rows on the same disk (their distributions), with the
  devserver's and the transport's p50 and p99;
- ingest.svg: durable ingest into an empty and a 1,000,000-row database, the bare batched insert
  of the same rows, and the load generator alone: each run, and the median;
- neighbours.svg: push → ack p99 with nobody else on the host, and beside each kind of neighbour
  the bench measures (a reader's search loop; the rows of a `neighbours` section), each round.

Each figure says the commit and the day of the run. The SVG carries no date of its own, so that
drawing the same record twice gives the same file. A figure whose rows the record lacks (a run
with --only) is left as it was, and said so. With --page, the table of every figure of the run
replaces what stands between the page's `<!-- bench:` markers; a smoke run's record is refused.

Usage: bench_figures.py RECORD.json DIRECTORY [--page docs/performance.md]
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

plt.rcParams.update({"svg.hashsalt": "intrapush", "svg.fonttype": "none", "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False})
METADATA = {"Date": None, "Creator": "scripts/bench_figures.py"}
COLOURS = {"daemon": "#1f5fa8", "bare": "#8a8a8a", "other": "#d17a00", "third": "#3a8a3a"}


def rows_with(record, prefix, section=None):
    return [row for row in record["rows"] if row["figure"].startswith(prefix) and row.get("samples") is not None
            and (section is None or row.get("section") == section)]


def row(record, prefix):
    found = rows_with(record, prefix)
    return found[0] if found else None


def stamp(figure, record):
    note = f"make bench on {record['commit']}" + (" with changes not committed" if record["uncommitted_changes"] else "")
    note += f", {record['date']}, {record['cpus']} CPUs" + (" (smoke: tiny sizes)" if record["smoke"] else "")
    figure.text(0.99, 0.01, note, ha="right", va="bottom", fontsize=7, color="#666666")


def save(figure, record, directory, name):
    stamp(figure, record)
    figure.tight_layout(rect=(0, 0.03, 1, 1))
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


def strips(axes, series, unit, colour_of):
    """One row per series: each sample as a dot, the median as a bar."""
    for index, (label, samples) in enumerate(series):
        colour = COLOURS[colour_of(label)]
        axes.plot(samples, [index] * len(samples), marker="o", markersize=4, linestyle="none", color=colour, alpha=0.7)
        median = statistics.median(samples)
        axes.plot([median, median], [index - 0.3, index + 0.3], color=colour, linewidth=2.2)
        axes.annotate(f"{median:,.3g} {unit}" if median < 100 else f"{median:,.0f} {unit}", (max(samples), index),
                      xytext=(6, 0), textcoords="offset points", fontsize=7, ha="left", va="center", color=colour)
    axes.set_yticks(range(len(series)), [label for label, _ in series])
    axes.set_ylim(-0.6, len(series) - 0.3)
    axes.invert_yaxis()


def ingest(record, directory):
    wanted = [("Durable ingest, empty DB", "durable ingest, empty database"),
              ("Durable ingest, ", "durable ingest, 1,000,000 rows stored"),
              ("Bare batched insert", "bare batched insert of the same rows"),
              ("Load generator alone", "the load generator alone (stores nothing)")]
    series = []
    for prefix, label in wanted:
        found = [r for r in rows_with(record, prefix) if not (prefix == "Durable ingest, " and "empty" in r["figure"])]
        if found:
            series.append((label.replace("1,000,000", found[0]["figure"].split(", ")[-1].replace("-row DB", "")), found[0]["samples"]))
    if len(series) < 3:
        return False
    burst = re.search(r"([\d,]+)-push burst", rows_with(record, "Durable ingest, empty DB")[0]["method"])
    figure, axes = plt.subplots(figsize=(7.5, 2.8))
    strips(axes, series, "/s", lambda label: "daemon" if "durable" in label else "bare" if "bare" in label else "other")
    axes.set_xlabel(f"pushes per second, each run ({burst.group(1) if burst else 'a'}-push bursts of ~300-byte JSON)")
    axes.set_xlim(0, max(max(samples) for _, samples in series) * 1.18)
    axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:,.0f}"))
    axes.set_title("Durable ingest: committed and acknowledged", loc="left")
    save(figure, record, directory, "ingest.svg")
    return True


def neighbours(record, directory):
    series = [(r["figure"].replace("Push → ack p99 ", "").replace("Push → ack p99, ", ""), r["samples"])
              for r in rows_with(record, "Push → ack p99") if isinstance(r["samples"], list)]
    series += [(r["figure"].replace("Neighbours: ", "").replace(" / max", ""), r["samples"]) for r in record["rows"]
               if r.get("section") == "neighbours" and isinstance(r.get("samples"), list) and r["samples"]]
    if len(series) < 2:
        return False
    figure, axes = plt.subplots(figsize=(7.5, 0.9 + 0.55 * len(series)))
    strips(axes, series, "ms", lambda label: "bare" if label.startswith(("no reader", "quiet")) else "other")
    low, high = min(min(samples) for _, samples in series), max(max(samples) for _, samples in series)
    if high > 20 * low:  # rounds that far apart are read on a log scale
        axes.set_xscale("log")
        axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
        axes.set_xlim(low / 1.5, high * 3)
        axes.set_xlabel("push → ack p99 at 1,000 pushes/s, ms (log scale), each round")
    else:
        axes.set_xlim(0, high * 1.18)
        axes.set_xlabel("push → ack p99 at 1,000 pushes/s, ms, each round")
    axes.set_title("Push → ack beside neighbours on the host", loc="left")
    save(figure, record, directory, "neighbours.svg")
    return True


BEGIN = "<!-- bench: the table below"
END = "<!-- bench: end -->"


def page_table(record):
    """The run's rows as Markdown, under a line naming the run."""
    commit = f"`{record['commit']}`" + (" with changes not committed" if record["uncommitted_changes"] else "")
    lines = [f"Measured by `make bench` on commit {commit}, {record['date']}, on {record['cpus']} CPUs (load average "
             f"{record['load_average_at_end']} at the end), in {record['seconds'] // 60} min; min, median and max of "
             f"its runs, and whether the median meets its target:", "",
             "| section | figure | target | min | median | max | met? |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for found in record["rows"]:
        if found["error"]:
            cells = ["—", "—", "ERROR: " + found["error"].splitlines()[0], "—"]
        else:
            low, middle, high = found["values"] or ("", "", "")
            verdict = {True: "yes", False: "**no**", None: "—"}[found["met"]]
            if found["figure"].startswith("Guarantees"):
                verdict = "pass" if found["met"] else "**FAIL**"
            cells = [low, f"**{middle}**" if middle else "", high, verdict]
        cells = [cell.replace("|", "\\|") for cell in cells]
        lines.append("| " + " | ".join([found["section"] or "", found["figure"].replace("|", "\\|"), found["target"], *cells]) + " |")
    return "\n".join(lines)


def rewrite_page(record, path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    begin, end = text.index(BEGIN), text.index(END)
    begin = text.index("\n", begin) + 1
    with open(path, "w", encoding="utf-8") as file:
        file.write(text[:begin] + page_table(record) + "\n" + text[end:])
    print(f"bench_figures: wrote the table of {path}")


def main():
    arguments = sys.argv[1:]
    page = None
    if "--page" in arguments:
        index = arguments.index("--page")
        page = arguments[index + 1]
        del arguments[index:index + 2]
    if len(arguments) != 2:
        sys.exit(__doc__)
    with open(arguments[0]) as file:
        record = json.load(file)
    if page and record["smoke"]:
        sys.exit("bench_figures: a smoke run's figures are no figures for the page")
    os.makedirs(arguments[1], exist_ok=True)
    missing = [draw.__name__ for draw in (latency, ingest, neighbours) if not draw(record, arguments[1])]
    if missing:
        print(f"bench_figures: the record has not the rows of {', '.join(missing)}: left as it was")
    if page:
        rewrite_page(record, page)


if __name__ == "__main__":
    main()
