"""The sender of the power-cut test (powercut.py): `intrapush send` in a loop, as root (who
may send), through the daemon's local API beside the database; it records which sends exited 0,
that is which messages the daemon (or the CLI itself, when no daemon answers yet) committed."""
import json
import subprocess
import threading
import time


class Sender(threading.Thread):
    """`intrapush send '{"id":"s-<round>-<n>"}'` in a loop; `ok` lists the ids of those that
    exited 0 (and printed their id)."""

    def __init__(self, cli, config, environment, round_number, log):
        super().__init__(daemon=True)
        self.argv = [cli, "send", "--config", config]
        self.environment, self.round, self.log = environment, round_number, log
        self.ok, self.failures = [], {}
        self.lock, self.stopping, self.process = threading.Lock(), False, None

    def run(self):
        number = 0
        while True:
            number += 1
            message_id = f"s-{self.round}-{number}"
            with self.lock:
                if self.stopping:
                    return
                self.process = subprocess.Popen(
                    self.argv + [json.dumps({"id": message_id, "n": number})], env=self.environment,
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log)
            out, _ = self.process.communicate()
            if self.process.returncode == 0 and out.decode().strip() == message_id:
                self.ok.append(message_id)
            else:
                code = self.process.returncode
                self.failures[code] = self.failures.get(code, 0) + 1
                time.sleep(0.02)  # no daemon yet, say: do not spin

    def halt(self):
        """SIGKILL the send in flight, and no more."""
        with self.lock:
            self.stopping = True
            if self.process is not None and self.process.poll() is None:
                self.process.kill()
        if self.is_alive():
            self.join()
