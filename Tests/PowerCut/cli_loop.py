# SPDX-License-Identifier: Apache-2.0
"""One run of the `intrapush` CLI at a time, in a loop on a thread of its own, until `halt`: the
shape of the power-cut test's sender and marker (sender.py, marker.py)."""
import subprocess
import threading
import time


class CLILoop(threading.Thread):
    """Runs `argv + call()[0]` again and again; `ok` lists what each run that exited 0 with the
    answer expected stood for, `failures` counts the others by exit code."""

    def __init__(self, argv, environment, log):
        super().__init__(daemon=True)
        self.argv, self.environment, self.log = argv, environment, log
        self.ok, self.failures = [], {}
        self.lock, self.stopping, self.process = threading.Lock(), False, None

    def call(self):
        """The next run: (its arguments, what it stands for, a test of its standard output)."""
        raise NotImplementedError

    def run(self):
        while True:
            arguments, item, expected = self.call()
            with self.lock:
                if self.stopping:
                    return
                self.process = subprocess.Popen(self.argv + arguments, env=self.environment,
                                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log)
            out, _ = self.process.communicate()
            if self.process.returncode == 0 and expected(out.decode()):
                self.ok.append(item)
            else:
                code = self.process.returncode
                self.failures[code] = self.failures.get(code, 0) + 1
                time.sleep(0.02)  # no daemon yet, say: do not spin

    def halt(self):
        """SIGKILL the run in flight, and no more."""
        with self.lock:
            self.stopping = True
            if self.process is not None and self.process.poll() is None:
                self.process.kill()
        if self.is_alive():
            self.join()
