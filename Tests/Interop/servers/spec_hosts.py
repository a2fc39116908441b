# SPDX-License-Identifier: Apache-2.0
"""What spec_server.py keeps per host (docs/protocol.md, section 10): a push and whom it is for,
and a host's account of it."""
import re
import time

LEGACY = ""                                  # the host of connections without Intrapush-Host (S-HOST-6)
HOST_ID = re.compile(r"[A-Za-z0-9._~-]{1,64}\Z")  # S-HOST-7
REPLACED = 4409                              # S-HOST-5


class Push:
    """`to`: None for every host of the organisation (S-HOST-2), else one host's key (S-HOST-4)."""

    def __init__(self, seq, ident, frames, size, to=None):
        self.seq, self.id, self.frames, self.size, self.to = seq, ident, frames, size, to
        self.time = time.time()


class Host:
    """What the server keeps for one host (S-HOST-1): what it acknowledged or set aside, the
    messages it took, its connections. The org-wide pushes queued before `since` (the retention,
    S-HOST-3) or numbered below `first` are not its."""

    def __init__(self, key, since, first=1):
        self.key, self.since, self.first = key, since, first
        self.acknowledged = set()  # seqs acknowledged (S-ACK-1: kept until then)
        self.set_aside = set()     # seqs its client could not take (S-SIZE-2)
        self.taken = {}            # client message id -> the message (S-OUT-3: once)
        self.connections = []      # oldest first
        self.current = None        # the connection deliveries go to: the newest ready one

    def wants(self, push):
        return push.to == self.key if push.to is not None else push.time >= self.since and push.seq >= self.first

    def open_connections(self):
        return [c for c in self.connections if not c.ended and not c.replaced]
