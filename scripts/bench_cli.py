#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# `intrapush` speed on a large database (issue 3's targets), on a release build (make release).
# The schema comes from the real daemon's migrations (it creates the file); the rows are then
# bulk-inserted, ~300-byte JSON payloads like the server's bursts, every third one read (for
# everyone, as a mark from before per-person marks). The same commands run as root (the file
# itself) and as a user who is no administrator (nobody, through the daemon's local API).
# Prints figures; asserts nothing about speed.  Usage: bench_cli.py [ROWS]  (default 1,000,000)
import json, os, random, signal, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.request
R = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release")
ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
RUNS = 11
work = tempfile.mkdtemp(dir="/var/tmp", prefix="intrapush-bench-")
os.chmod(work, 0o711)  # a user who is no administrator reaches the socket, not the files
db = os.path.join(work, "notifications.sqlite3")

def stats(port):
    return json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/stats"))

def post(port, body):
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/push?org=acme", data=body.encode(), method="POST")).read()

dev = subprocess.Popen([f"{R}/intrapush-devserver", "serve", "--listen", "127.0.0.1:0", "--token", "bench-token"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = int(dev.stdout.readline().strip().rsplit(":", 1)[1])
conf = os.path.join(work, "d.conf")
open(conf, "w").write(f'host = "127.0.0.1:{port}"\norg = "acme"\ntoken = "bench-token"\ndatabase = "{db}"\nheartbeat_interval = "1s"\n'
                       'readers = "everyone"\n')

def start_daemon():
    daemon = subprocess.Popen([f"{R}/intrapushd", "--config", conf], stderr=subprocess.DEVNULL)
    while stats(port)["connections_open"] < 1: time.sleep(0.005)
    return daemon

try:
    # 1. The daemon creates and migrates the database; then it stops and the rows go in.
    daemon = start_daemon()
    post(port, '{"id":"seed","title":"seed","body":"created by intrapushd"}')
    while stats(port)["acked"] < 1: time.sleep(0.005)
    daemon.send_signal(signal.SIGTERM); daemon.wait()
    words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
             "quebec romeo sierra tango uniform victor whiskey xray yankee zulu 服务器 告警 磁盘 内存 发布 更新").split()
    rng = random.Random(7)
    t0 = time.monotonic()
    con = sqlite3.connect(db)
    start_ms = int(time.time() * 1000) - ROWS * 50
    batch = []
    for i in range(ROWS):
        title = " ".join(rng.choice(words) for _ in range(3))
        body = " ".join(rng.choice(words) for _ in range(20))
        payload = json.dumps({"id": f"b-{i}", "title": title, "body": body, "host": f"host-{i % 500:03d}.corp"}, ensure_ascii=False)
        batch.append((f"b-{i}", start_ms + i * 50, payload, title, body, start_ms if i % 3 == 0 else None))
        if len(batch) == 50_000:
            con.executemany("INSERT INTO notifications (message_id, received_at, payload, title, body, read_at) VALUES (?,?,?,?,?,?)", batch)
            con.commit(); batch = []
    con.executemany("INSERT INTO notifications (message_id, received_at, payload, title, body, read_at) VALUES (?,?,?,?,?,?)", batch)
    con.commit()
    con.execute("INSERT INTO notification_reads SELECT id, -1, read_at FROM notifications WHERE read_at IS NOT NULL")
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(db) / 2**20
    count, = con.execute("SELECT count(*) FROM notifications").fetchone()
    avg, = con.execute("SELECT avg(length(CAST(payload AS BLOB))) FROM notifications").fetchone()
    con.close()
    print(f"database: {count:,} notifications, {size:,.0f} MiB, payload {avg:.0f} bytes on average "
          f"(filled in {time.monotonic() - t0:.0f} s); release build; {RUNS} runs each, wall time of the whole process")

    # 2. Each command, stdout to /dev/null (a pipe-like non-terminal), warm cache.
    env = dict(os.environ, INTRAPUSH_DATABASE=db)
    cases = [
        ("list (20 newest)", ["list"], 50),
        ("list --json (20 newest)", ["list", "--json"], 50),
        ("count", ["count"], 50),
        ("count --unread", ["count", "--unread"], 50),
        ("list --unread", ["list", "--unread"], None),
        ("list --since 1h", ["list", "--since", "1h"], None),
        ("list --grep Zebrafish (case-sensitive, no match)", ["list", "--grep", "Zebrafish"], 300),
        ("list --grep zebrafish (ignoring case, no match)", ["list", "--grep", "zebrafish"], 300),
        ("list --grep 磁盘告磁 (CJK, no match)", ["list", "--grep", "磁盘告磁"], 300),
        ("list --grep host-123 (common)", ["list", "--grep", "host-123"], 300),
        ("count --grep host-123 (full scan)", ["count", "--grep", "host-123"], None),
        ("show ID", ["show", str(count // 2)], None),
        ("status", ["status"], None),
    ]
    def measure(heading, prefix):
        print(heading)
        print(f"{'command':48} {'min':>8} {'median':>8} {'max':>8}  target")
        for name, args, target in cases:
            command = prefix + [f"{R}/intrapush"] + args
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)  # warm-up
            times = []
            for _ in range(RUNS):
                t = time.monotonic()
                subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
                times.append((time.monotonic() - t) * 1000)
            verdict = "" if target is None else (f"< {target} ms " + ("met" if statistics.median(times) < target else "NOT MET"))
            print(f"{name:48} {min(times):7.1f}  {statistics.median(times):7.1f}  {max(times):7.1f}  {verdict}")

    measure("as root: the database itself", [])
    for fmt in ("json", "csv"):
        t = time.monotonic()
        out = subprocess.run([f"{R}/intrapush", "export", "--format", fmt], env=env, stdout=subprocess.PIPE, check=True).stdout
        dt = time.monotonic() - t
        print(f"export --format {fmt}: {count:,} rows, {len(out) / 2**20:,.0f} MiB in {dt:.2f} s ({count / dt:,.0f} rows/s)")

    # 2b. The same as a user who is no administrator: through the daemon's gate.
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    daemon = start_daemon()
    measure("as nobody (readers = \"everyone\"): through the daemon's local API", nobody)
    daemon.send_signal(signal.SIGTERM); daemon.wait()

    # 3. follow: how long after its commit a notification is printed. received_at is stamped
    #    before the commit, so arrival minus received_at is an upper bound of commit → print.
    #    As root it watches the file (inotify); as nobody the daemon sends it (Subscribe).
    daemon = start_daemon()
    for who, prefix in (("root, inotify", []), ("nobody, Subscribe", nobody)):
        follow = subprocess.Popen(prefix + [f"{R}/intrapush", "follow", "--json", "--lines", "1"], env=env,
                                  stdout=subprocess.PIPE, text=True)
        follow.stdout.readline()
        lags = []
        for i in range(100):
            post(port, json.dumps({"id": f"f-{who[0]}-{i}", "title": "follow", "body": str(i)}))
            line = follow.stdout.readline()
            arrived = time.time() * 1000
            received = json.loads(line)["received_at"]
            ms = time.mktime(time.strptime(received[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone + int(received[20:23]) / 1000
            lags.append(arrived - ms * 1000)
            time.sleep(0.02)
        follow.send_signal(signal.SIGINT); rc = follow.wait()
        lags.sort()
        print(f"follow ({who}): receipt → printed, 100 pushes 20 ms apart: p50 {lags[50]:.1f} ms, p95 {lags[95]:.1f} ms, "
              f"max {lags[-1]:.1f} ms (target < 1000, aim 100); exit on SIGINT {rc}")
    daemon.send_signal(signal.SIGTERM); daemon.wait()
finally:
    dev.send_signal(signal.SIGTERM); dev.wait()
    subprocess.run(["rm", "-rf", work])
