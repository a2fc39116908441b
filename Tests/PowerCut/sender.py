# SPDX-License-Identifier: Apache-2.0
"""The sender of the power-cut test (powercut.py): `intrapush send` in a loop, as root (who
may send), through the daemon's local API beside the database; it records which sends exited 0,
that is which messages the daemon (or the CLI itself, when no daemon answers yet) committed."""
import json

from cli_loop import CLILoop


class Sender(CLILoop):
    """`intrapush send '{"id":"s-<round>-<n>"}'` in a loop; `ok` lists the ids of those that
    exited 0 (and printed their id)."""

    def __init__(self, cli, config, environment, round_number, log):
        super().__init__([cli, "send", "--config", config], environment, log)
        self.round, self.number = round_number, 0

    def call(self):
        self.number += 1
        message_id = f"s-{self.round}-{self.number}"
        return [json.dumps({"id": message_id, "n": self.number})], message_id, \
            lambda out: out.strip() == message_id
