#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for the daemon's marks with read receipts (selftest.py's RECEIPTS check): in one
transaction it stores a push and marks it read, in the daemon's tables (`notifications`,
`notification_reads`), and as soon as COMMIT returns it sends the push's read receipt to the
server (push_server.py, a WebSocket on loopback) and waits for its acknowledgement: a receipt
that leaves before its mark is durable, as the daemon's did. At synchronous=NORMAL the commit is
not synced, so a cut takes back marks whose receipts the server holds, which powercut.py's
receipt check must report; at FULL each mark is synced before its receipt goes, and none is.

    receipt_writer.py DATABASE PORT TEMPLATE ACK --synchronous NORMAL|FULL

TEMPLATE is `read_receipt_text` (push_server.RECEIPT_TEXT), ACK the server's acknowledgement
(push_server.UPSTREAM_ACK, `{id}` in it): anything else answered is an error. Runs until an error (the cut makes
every operation fail with EIO) or until killed.
"""
import argparse
import base64
import json
import os
import socket
import sqlite3
import struct
import sys
import time
import uuid


def connect(port):
    """A WebSocket client connection to the server, upgraded."""
    sock = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("the server closed during the upgrade")
        answer += chunk
    return sock


def text_frame(payload):
    """A client's text frame: masked, as every frame to a server must be."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0x80 | 126]) + struct.pack("!H", size)
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


def read_text(sock, buffer):
    """(the next frame's payload, the bytes after it): the server's answers are short, unmasked."""
    while len(buffer) < 2 or len(buffer) < 2 + (buffer[1] & 0x7F):
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("the server closed")
        buffer += chunk
    end = 2 + (buffer[1] & 0x7F)
    return buffer[2:end].decode(), buffer[end:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("port", type=int)
    parser.add_argument("template")
    parser.add_argument("ack")
    parser.add_argument("--synchronous", choices=["OFF", "NORMAL", "FULL"], required=True)
    args = parser.parse_args()

    db = sqlite3.connect(args.database, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={args.synchronous}")
    # No checkpoints, as selftest_writer.py: one just before the cut would leave nothing to lose.
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE IF NOT EXISTS notifications(id INTEGER PRIMARY KEY, message_id TEXT NOT NULL, "
               "payload BLOB NOT NULL)")
    db.execute("CREATE TABLE IF NOT EXISTS notification_reads(notification_id INTEGER NOT NULL, "
               "reader INTEGER NOT NULL, read_at INTEGER NOT NULL, PRIMARY KEY (notification_id, reader))")
    sock, buffer, row = connect(args.port), b"", 0
    try:
        while True:
            row += 1
            message_id, now = f"p-0-{row}", int(time.time() * 1000)
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO notifications(id, message_id, payload) VALUES (?, ?, randomblob(?))",
                       (row, message_id, 50 + (row * 7919) % 3000))
            db.execute("INSERT INTO notification_reads(notification_id, reader, read_at) VALUES (?, 0, ?)",
                       (row, now))
            db.execute("COMMIT")
            receipt = json.loads(args.template.replace("{message_id}", message_id).replace("{user}", "root")
                                 .replace("{read_at}", str(now)))
            receipt["id"] = str(uuid.uuid4())  # as the daemon adds one
            sock.sendall(text_frame(json.dumps(receipt).encode()))
            answer, buffer = read_text(sock, buffer)
            if answer != args.ack.replace("{id}", receipt["id"]):
                sys.exit(f"the server answered {answer!r} to receipt {receipt['id']}")
    except sqlite3.Error as error:
        print(f"receipt writer stopped after {row - 1} marks: {error}", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
