#!/usr/bin/env python3
# Measures a release build (make release first): 20,000-push burst rate (stored with
# synchronous=FULL, then acknowledged), RSS idle-connected and after 100,000 pushes, SIGTERM-to-exit.
# A precursor of `make bench`; prints figures, asserts nothing about speed.
import json, os, signal, subprocess, sys, tempfile, time, urllib.request, statistics
R = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release")
def rss(pid):
    d = {}
    for line in open(f"/proc/{pid}/status"):
        k, v = line.split(":", 1)
        if k in ("VmRSS", "RssAnon", "RssFile"): d[k] = int(v.split()[0]) / 1024
    return d
def stats(port):
    return json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/stats"))
def post(port, path):
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=b"", method="POST")).read()
work = tempfile.mkdtemp(dir="/var/tmp")
dev = subprocess.Popen([f"{R}/intrapush-devserver", "serve", "--listen", "127.0.0.1:0", "--token", "bench-token"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = int(dev.stdout.readline().strip().rsplit(":", 1)[1])
def start_daemon(db):
    conf = os.path.join(work, "d.conf")
    open(conf, "w").write(f'host = "127.0.0.1:{port}"\norg = "acme"\ntoken = "bench-token"\ndatabase = "{db}"\n')
    p = subprocess.Popen([f"{R}/intrapushd", "--config", conf], stderr=subprocess.DEVNULL)
    while stats(port)["connections_open"] < 1: time.sleep(0.005)
    return p
daemon = start_daemon(os.path.join(work, "n.sqlite3"))
time.sleep(3)
idle = rss(daemon.pid)
print(f"idle connected (before any push): RSS {idle['VmRSS']:.1f} MiB, RssAnon {idle['RssAnon']:.1f} MiB, RssFile {idle['RssFile']:.1f} MiB")
rates = []
for run in range(5):
    base = stats(port)["acked"]
    t0 = time.monotonic()
    post(port, f"/push/burst?count=20000&size=300&prefix=r{run}-")
    while stats(port)["acked"] < base + 20000: time.sleep(0.002)
    dt = time.monotonic() - t0
    rates.append(20000 / dt)
    print(f"run {run+1}: 20,000 pushes stored+acked in {dt*1000:.0f} ms = {20000/dt:,.0f} pushes/s")
s = stats(port)
print(f"burst rate: min {min(rates):,.0f} median {statistics.median(rates):,.0f} max {max(rates):,.0f} pushes/s; acks_before_commit n/a (no verify), ack_mismatches {s['ack_mismatches']}")
time.sleep(2)
after = rss(daemon.pid)
print(f"connected after 100,000 pushes: RSS {after['VmRSS']:.1f} MiB, RssAnon {after['RssAnon']:.1f} MiB")
daemon.send_signal(signal.SIGTERM); daemon.wait()
times = []
for run in range(7):
    d = start_daemon(os.path.join(work, "n.sqlite3"))
    time.sleep(0.3)
    t0 = time.monotonic(); d.send_signal(signal.SIGTERM); rc = d.wait(); times.append((time.monotonic() - t0) * 1000)
    assert rc == 0
print("SIGTERM→exit ms: " + ", ".join(f"{t:.1f}" for t in times) + f"; median {statistics.median(times):.1f}")
print("close codes seen by server:", stats(port)["close_codes"])
dev.send_signal(signal.SIGTERM); dev.wait()
subprocess.run(["rm", "-rf", work])
