# SPDX-License-Identifier: Apache-2.0
"""The outbox figures of issue 13 for `make bench`: messages to the server, timed by the server.

Messages are queued through the daemon's local API (a Varlink call of io.intrapush.Outbox.Send on
the socket beside the database), exactly as `intrapush send` does: one connection per call, from
four threads. Throughput: N messages queued while the server refuses connections, then the server
lets the daemon in; messages/s = N / (server time of the last receipt − of the first). Queueing:
N / the wall time of the four threads' blocking calls (each returns once committed). Latency: one
message at a time; the server's CLOCK_MONOTONIC time of receipt − ours right before the call.
"""
import json, os, shutil, socket, statistics, threading, time

from bench_support import Row, log, now_us, runs, summarise, wait_for


def varlink_call(path, method, parameters=None, more=False):
    """One Varlink call on a connection of its own (each message a JSON object ended by a NUL):
    its replies, up to the last (the one without `continues`)."""
    call = {"method": method, "parameters": parameters or {}}
    if more:
        call["more"] = True
    replies, buffer = [], b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        connection.sendall(json.dumps(call).encode() + b"\0")
        while not replies or replies[-1].get("continues"):
            while b"\0" not in buffer:
                chunk = connection.recv(65536)
                if not chunk:
                    raise RuntimeError(f"the daemon closed its socket: {buffer!r}")
                buffer += chunk
            message, buffer = buffer.split(b"\0", 1)
            replies.append(json.loads(message))
    return replies


def send_message(path, body):
    """Queues `body` (a message's JSON text); returns once it is committed."""
    reply = varlink_call(path, "io.intrapush.Outbox.Send", {"message": body})[-1]
    if "error" in reply:
        raise RuntimeError(f"send refused: {reply}")


def queue_messages(socket_path, prefix, count, threads=4):
    def worker(first):
        for n in range(first, count, threads):
            send_message(socket_path, json.dumps({"id": f"{prefix}{n}", "n": n, "pad": "x" * 200}))
    started = time.monotonic()
    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return time.monotonic() - started


def upstream(server, since=0):
    return server.request("GET", f"/upstream?since={since}")


def figure_outbox(bench, server):
    options = bench.options
    count = 500 if options.smoke else 10_000
    drain = Row("Outbox drain, queued → at the server", "(figure)",
                f"{count:,} messages (~250 B) queued while the server refused the daemon, then let in; {runs(options.runs)}; "
                "messages / (server time of the last receipt − the first)")
    enqueue = Row("Outbox queueing, send → committed", "(figure)",
                  f"the same {count:,} messages through the local API (Varlink) from 4 threads, each call returning once "
                  "committed; messages / wall time")
    latency = Row("Send → server sees the frame, p50 / p99", "(figure)",
                  "200 messages one at a time, daemon connected; server CLOCK_MONOTONIC at receipt − ours before the call")
    drains, enqueues, p50s, p99s = [], [], [], []
    for run in range(options.runs):
        database = os.path.join(bench.run_directory(f"outbox-{run}"), "notifications.sqlite3")
        daemon = bench.connected_daemon(server, database)
        socket_path = database + ".sock"
        server.request("POST", "/control/reject?status=403")
        server.request("POST", "/control/drop")
        wait_for(lambda: server.stats()["connections_open"] == 0, 20, "the daemon to be refused")
        before = upstream(server)["count"]
        seconds = queue_messages(socket_path, f"o{run}-", count)
        enqueues.append(count / seconds)
        server.request("POST", "/control/reject?status=0")
        wait_for(lambda: upstream(server, 10**9)["count"] >= before + count, 120, f"{count:,} messages at the server",
                 interval=0.2)
        received = [m["received_us"] for m in upstream(server, before)["messages"][:count]]
        drains.append(count / ((max(received) - min(received)) / 1e6))
        started = server.stats()["started_monotonic_us"]
        samples = []
        for n in range(200):
            before_call = now_us()
            send_message(socket_path, json.dumps({"id": f"l{run}-{n}"}))
            seen = before + count + n
            report = wait_for(lambda: (lambda r: r if r["messages"] else None)(upstream(server, seen)),
                              20, "the message at the server", interval=0.002)
            samples.append((started + report["messages"][0]["received_us"] - before_call) / 1000)
        p50s.append(statistics.median(samples))
        p99s.append(sorted(samples)[int(len(samples) * 0.99) - 1])
        bench.stop_daemon(daemon)
        shutil.rmtree(os.path.dirname(database))
        log(f"  outbox run {run + 1}: drain {drains[-1]:,.0f}/s, queueing {enqueues[-1]:,.0f}/s, "
            f"latency p50 {p50s[-1]:.2f} ms p99 {p99s[-1]:.2f} ms")
    drain.values = summarise(drains, lambda v: f"{v:,.0f} msgs/s")
    enqueue.values = summarise(enqueues, lambda v: f"{v:,.0f} msgs/s")
    latency.values = summarise(p50s, lambda v: f"{v:.2f} ms")
    latency.values = (latency.values[0], f"{statistics.median(p50s):.2f} / {statistics.median(p99s):.2f} ms", latency.values[2])
    return [drain, enqueue, latency]
