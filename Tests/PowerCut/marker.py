"""The marker of the power-cut test (powercut.py): `intrapush mark-read` in a loop, as root, for
the notifications as they arrive, one id a call; it records which ids the daemon (or the CLI
itself, when no daemon answers yet) answered as marked now, that is which marks were committed.
While the server streams pushes, the daemon makes each of these marks durable with the next
push's sync rather than one of its own: after the cut, every id recorded must be read."""
import subprocess
import threading
import time


class Marker(threading.Thread):
    """`intrapush mark-read <id>` for id 1, 2, …; `ok` lists the ids answered "marked 1"."""

    def __init__(self, cli, config, environment, log):
        super().__init__(daemon=True)
        self.argv = [cli, "mark-read", "--config", config]
        self.environment, self.log = environment, log
        self.ok, self.failures = [], {}
        self.lock, self.stopping, self.process = threading.Lock(), False, None

    def run(self):
        row = 1
        while True:
            with self.lock:
                if self.stopping:
                    return
                self.process = subprocess.Popen(self.argv + [str(row)], env=self.environment,
                                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log)
            out, _ = self.process.communicate()
            if self.process.returncode == 0 and out.decode().startswith("marked 1 notification read"):
                self.ok.append(row)
                row += 1
            else:
                # Not there yet (exit 1), or no daemon and no database yet: the same id again.
                code = self.process.returncode
                self.failures[code] = self.failures.get(code, 0) + 1
                time.sleep(0.02)

    def halt(self):
        """SIGKILL the mark in flight, and no more."""
        with self.lock:
            self.stopping = True
            if self.process is not None and self.process.poll() is None:
                self.process.kill()
        if self.is_alive():
            self.join()
