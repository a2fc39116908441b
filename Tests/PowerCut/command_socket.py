# SPDX-License-Identifier: Apache-2.0
"""cutfs's command socket, both ends: a unix stream socket, one line of text in and one line of
text out per command (`ping`, `stats`, `cut`, `cut scatter`, `arm scatter R W`, `sync`; see cutfs.py)."""
import os
import socket
import threading


def serve(path, handle):
    """Answers each line with handle(line), on threads of their own (the FUSE loop has the main
    one)."""
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)

    def client(conn):
        with conn, conn.makefile("rw") as stream:
            for line in stream:
                stream.write(handle(line.strip()) + "\n")
                stream.flush()

    def accept():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=client, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()


def send(path, line, timeout=30):
    """One command; returns its one-line reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(path)
        conn.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = conn.recv(4096)
            if not chunk:
                raise OSError(f"cutfs closed the command socket after {reply!r}")
            reply += chunk
        return reply.decode().strip()
