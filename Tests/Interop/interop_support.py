# SPDX-License-Identifier: Apache-2.0
"""What interop.py runs: the server stacks (built once), the proxies in front, the processes."""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "support"))
from intrapush_test_support import daemon_environment, free_port, start_daemon, stop, wait_for  # noqa: E402,F401

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
ROOT = HERE.parent.parent
CACHE = ROOT / ".build" / "interop"
VENV_PYTHON = CACHE / "venv" / "bin" / "python"
JETTY_JARS = ["jetty9-server", "jetty9-http", "jetty9-io", "jetty9-util", "jetty9-util-ajax", "servlet-api",
              "jetty9-websocket-api", "jetty9-websocket-common", "jetty9-websocket-server", "jetty9-websocket-servlet"]
# nginx and HAProxy close an idle tunnel after this; the daemon's heartbeat is every second, so
# only its traffic (and the server's pongs to its pings) keeps the connection open.
PROXY_IDLE_TIMEOUT_MS = 2500


def debian_version(package):
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return out.stdout.split("-")[0].split(":")[-1] if out.returncode == 0 else "?"


def run(argv, **kwargs):
    subprocess.run(argv, check=True, **kwargs)


def is_stale(target, *sources):
    return not target.exists() or any(s.stat().st_mtime > target.stat().st_mtime for s in sources)


@dataclass
class Stack:
    """A server program and what it needs to start."""
    name: str
    version: str
    argv: list
    env: dict = field(default_factory=dict)


def python_stack(name):
    version = subprocess.run([VENV_PYTHON, "-c", f"import importlib.metadata as m; print(m.version('{name}'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    return Stack(name, version, [str(VENV_PYTHON), str(SERVERS / f"{name}_server.py")])


def spec_stack():
    """The server written from docs/protocol.md alone: the standard library only, no venv needed."""
    return Stack("spec", "protocol 1.2 (stdlib)", [sys.executable, str(SERVERS / "spec_server.py")])


def node_ws_stack():
    version = json.loads(Path("/usr/share/nodejs/ws/package.json").read_text())["version"]
    return Stack("ws", f"{version} (Node.js {subprocess.check_output(['node', '--version'], text=True).strip()})",
                 ["node", str(SERVERS / "ws_server.js")], {"NODE_PATH": "/usr/share/nodejs"})


def jetty_stack():
    classes = CACHE / "jetty"
    classpath = ":".join(f"/usr/share/java/{jar}.jar" for jar in JETTY_JARS)
    sources = [SERVERS / "JettyServer.java", SERVERS / "JettyCheck.java"]
    if is_stale(classes / "JettyServer.class", *sources):
        run(["javac", "-d", str(classes), "-cp", classpath, *map(str, sources)])
    return Stack("jetty", debian_version("libjetty9-java"),
                 ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{classes}:{classpath}", "JettyServer"])


def gorilla_stack():
    binary = CACHE / "gorilla_server"
    sources = [SERVERS / "gorilla_server.go", SERVERS / "gorilla_check.go"]
    if is_stale(binary, *sources):
        env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=str(CACHE / "gocache"))
        run(["go", "build", "-o", str(binary), *map(str, sources)], env=env)
    go = subprocess.check_output(["go", "env", "GOVERSION"], text=True).strip()
    return Stack("gorilla", f"{debian_version('golang-github-gorilla-websocket-dev')} ({go})", [str(binary)])


# Each builds what it needs (once: the output is kept under .build/interop) and names its version.
STACKS = {
    "websockets": lambda: python_stack("websockets"),
    "aiohttp": lambda: python_stack("aiohttp"),
    "tornado": lambda: python_stack("tornado"),
    "ws": node_ws_stack,
    "jetty": jetty_stack,
    "gorilla": gorilla_stack,
    "spec": spec_stack,
}


def wait_for_port(port, process, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with status {process.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)  # a port has no notification to await
    raise RuntimeError(f"not listening on {port} after {timeout} s")


class EventLog:
    """The server's JSON lines, read as they come; `on_event` runs on the reader thread first."""

    def __init__(self, stream, on_event=None):
        self.events = []
        self.changed = threading.Condition()
        self.on_event = on_event
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if self.on_event:
                self.on_event(event)
            with self.changed:
                self.events.append(event)
                self.changed.notify_all()

    def of(self, kind, connection=None):
        with self.changed:
            return [e for e in self.events if e["event"] == kind and connection in (None, e.get("connection"))]

    def wait(self, predicate, timeout, what):
        with self.changed:
            if not self.changed.wait_for(lambda: predicate(self), timeout):
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def make_certificates(directory):
    """A private CA and a certificate for localhost signed by it; returns (ca, cert, key, combined)."""
    d = Path(directory)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run(["openssl", "req", "-x509", *ec, "-keyout", d / "ca.key", "-out", d / "ca.pem", "-days", "2",
         "-subj", "/CN=intrapush interop CA"], **quiet)
    run(["openssl", "req", *ec, "-keyout", d / "server.key", "-out", d / "server.csr", "-subj", "/CN=localhost"], **quiet)
    (d / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run(["openssl", "x509", "-req", "-in", d / "server.csr", "-CA", d / "ca.pem", "-CAkey", d / "ca.key",
         "-CAcreateserial", "-out", d / "server.pem", "-days", "2", "-extfile", d / "san.ext"], **quiet)
    (d / "combined.pem").write_text((d / "server.pem").read_text() + (d / "server.key").read_text())
    # Mutual TLS: a client certificate from the same CA, and a stranger's, self-signed.
    run(["openssl", "req", *ec, "-keyout", d / "client.key", "-out", d / "client.csr", "-subj", "/CN=intrapush client"], **quiet)
    (d / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    run(["openssl", "x509", "-req", "-in", d / "client.csr", "-CA", d / "ca.pem", "-CAkey", d / "ca.key",
         "-CAcreateserial", "-out", d / "client.pem", "-days", "2", "-extfile", d / "client.ext"], **quiet)
    run(["openssl", "req", "-x509", *ec, "-keyout", d / "stranger.key", "-out", d / "stranger.pem", "-days", "2",
         "-subj", "/CN=a stranger"], **quiet)
    return d / "ca.pem", d / "server.pem", d / "server.key", d / "combined.pem"


def nginx_front(directory, port, upstream, certificates):
    _, cert, key, _ = certificates
    d = Path(directory)
    (d / "nginx-temp").mkdir(exist_ok=True)
    temp = " ".join(f"{kind}_temp_path {d}/nginx-temp/{kind};" for kind in
                    ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    (d / "nginx.conf").write_text(f"""
daemon off; pid {d}/nginx.pid; error_log {d}/nginx-error.log info;
events {{ worker_connections 64; }}
http {{
  access_log off; {temp}
  server {{
    listen 127.0.0.1:{port} ssl; ssl_certificate {cert}; ssl_certificate_key {key};
    location / {{
      proxy_pass http://127.0.0.1:{upstream}; proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade";
      proxy_set_header Host $host; proxy_read_timeout {PROXY_IDLE_TIMEOUT_MS}ms;
    }}
  }}
}}
""")
    version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip().split("/")[-1]
    return f"nginx {version}", ["nginx", "-p", str(d), "-e", str(d / "nginx-error.log"), "-c", str(d / "nginx.conf")]


def nginx_mtls_front(directory, port, upstream, certificates):
    """nginx that requires a client certificate from the interop CA (`ssl_verify_client on`)."""
    name, argv = nginx_front(directory, port, upstream, certificates)
    conf = Path(directory) / "nginx.conf"
    conf.write_text(conf.read_text().replace(
        "ssl_certificate_key", f"ssl_verify_client on; ssl_client_certificate {certificates[0]}; ssl_certificate_key", 1))
    return f"{name} requiring a client certificate", argv


def haproxy_front(directory, port, upstream, certificates):
    combined = certificates[3]
    d = Path(directory)
    (d / "haproxy.cfg").write_text(f"""
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  timeout tunnel {PROXY_IDLE_TIMEOUT_MS}ms
frontend wss
  bind 127.0.0.1:{port} ssl crt {combined}
  default_backend stack
backend stack
  server stack 127.0.0.1:{upstream}
""")
    version = subprocess.check_output(["haproxy", "-v"], text=True).split()[2].split("-")[0]
    return f"HAProxy {version}", ["haproxy", "-db", "-f", str(d / "haproxy.cfg")]


def tinyproxy(directory, port, credentials=None):
    """Debian's tinyproxy on loopback (CONNECT to any port), optionally with Basic credentials;
    returns (label, argv, log path)."""
    d = Path(directory)
    log = d / "tinyproxy.log"
    auth = f"BasicAuth {credentials[0]} {credentials[1]}\n" if credentials else ""
    (d / "tinyproxy.conf").write_text(
        f"Port {port}\nListen 127.0.0.1\nAllow 127.0.0.1\nTimeout 60\nMaxClients 20\n"
        f"LogFile \"{log}\"\nLogLevel Connect\nPidFile \"{d / 'tinyproxy.pid'}\"\n{auth}")
    version = subprocess.run(["tinyproxy", "-v"], capture_output=True, text=True).stdout.split()[-1]
    return f"tinyproxy {version}", ["tinyproxy", "-d", "-c", str(d / "tinyproxy.conf")], log


def have(program):
    return shutil.which(program) is not None
