# SPDX-License-Identifier: Apache-2.0
"""The interop scenario (Tests/Interop/README.md) played by spec_server.py: connection 1 gets the
fragmented message and the first half of the pushes; once they are acknowledged, the rest and, at
once, a close with 1001 (on purpose without waiting for their acknowledgements, unlike S-CLOSE-2:
the scenario checks that the client loses nothing when a server closes so); every later
connection gets what is not acknowledged, and says when all is. In check mode the server is
driven by lines on its standard input instead (read_commands)."""
import json
import sys

from spec_frames import CONT, PING, TEXT

FRAGMENTED = json.dumps({"id": "frag", "title": "fragmented", "body": "0123456789" * 300}, separators=(",", ":"))


def push_text(index):
    return json.dumps({"id": f"p{index}", "title": f"push {index}", "body": f"interop push {index}"},
                      separators=(",", ":"))


def play(server, count):
    data = FRAGMENTED.encode()
    server.queue(FRAGMENTED, "frag", [(TEXT, False, data[:1000]), (CONT, False, data[1000:2000]), (CONT, True, data[2000:])])
    for index in range(1, count // 2 + 1):
        server.queue(push_text(index))
    first = ["frag"] + [f"p{i}" for i in range(1, count // 2 + 1)]
    everything = first + [f"p{i}" for i in range(count // 2 + 1, count + 1)]
    state = {"second_half": False, "complete": set()}

    def acknowledged():
        with server.lock:
            connection = server.current  # the daemon's connection (one host: the daemon's)
            if connection is None:
                return
            done = {p.id for p in server.pushes if p.seq in connection.host.acknowledged}
        if connection.n == 1 and not state["second_half"] and done.issuperset(first):
            state["second_half"] = True
            for index in range(count // 2 + 1, count + 1):
                server.queue(push_text(index))
            server.event("closing", connection=1)
            connection.close(1001, "going away")
        elif connection.n >= 2 and connection.n not in state["complete"] and done.issuperset(everything):
            state["complete"].add(connection.n)
            server.event("complete", connection=connection.n)

    class ScenarioConnection(server.connection_class):
        def opened(self):
            self.send(PING, f"ping-{self.n}".encode())
            super().opened()

        def became_ready(self):
            super().became_ready()
            acknowledged()  # a later connection with nothing left says so at once

    server.connection_class = ScenarioConnection
    server.on_acknowledged = acknowledged


def read_commands(server):
    """Check mode: `push TEXT` queues a push for every host; `push-host HOST TEXT` for one host;
    `close CODE` closes the clients' connections."""
    for line in sys.stdin:
        verb, _, rest = line.rstrip("\n").partition(" ")
        if verb == "push":
            server.queue(rest)
        elif verb == "push-host":
            host, _, text = rest.partition(" ")
            server.queue(text, to=host)
        elif verb == "close":
            server.close_clients(int(rest or 1001))
