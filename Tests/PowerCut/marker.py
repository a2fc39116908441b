# SPDX-License-Identifier: Apache-2.0
"""The marker of the power-cut test (powercut.py): `intrapush mark-read` in a loop, as root, for
the notifications as they arrive, one id a call; it records which ids the daemon (or the CLI
itself, when no daemon answers yet) answered as marked now, that is which marks were committed.
While the server streams pushes, the daemon makes each of these marks durable with the next
push's sync rather than one of its own: after the cut, every id recorded must be read. With read
receipts on, each mark queues its receipt in the same transaction ("marked 1 notification read;
1 read receipt queued"), which may leave for the server only once the mark is durable."""
from cli_loop import CLILoop


class Marker(CLILoop):
    """`intrapush mark-read <id>` for id 1, 2, …; `ok` lists the ids answered "marked 1"."""

    def __init__(self, cli, config, environment, log):
        super().__init__([cli, "mark-read", "--config", config], environment, log)

    def call(self):
        # Not there yet (exit 1), or no daemon and no database yet: the same id again.
        row = len(self.ok) + 1
        return [str(row)], row, lambda out: out.startswith("marked 1 notification read")
