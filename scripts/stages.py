#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the stages of `make check`, `make test` or CI (.ci/run) side by side where the cores allow,
and prints each stage's time at the end.

Each stage is a command in one of three lanes, each lane running one stage at a time:
- build: what keeps the cores busy (the Swift builds, packaging, the fuzz harnesses), at nice 10,
  so that a test beside it keeps its pace;
- test: the tests, one at a time, since some drive floods or measure what they run;
- fetch: what waits on the network or the disk (debootstrap, the interop matrix's stacks).
A stage starts once the stages it needs have passed, the most wanted first (the order of the list
below). SwiftPM locks .build for a build, so the test lane never asks for one: the Makefile's test
targets take their build as a prerequisite that the runner passes empty (RELEASE_BUILD=, DEB_BUILD=,
INTEROP_DEPS=), and the Swift tests run their bundle directly.

Each stage's output goes to .build/stages/NAME.log and is printed when it ends; the times go to
.build/stages/times.tsv. After a failure no new stage starts (STAGES_KEEP_GOING=1: they do), the
running ones finish, and the run exits 1 naming the failed ones.

Usage: stages.py check|test|ci [--list]
"""
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, ".build", "stages")
MAKE = os.environ.get("MAKE", "make")
# The test targets' builds are stages of their own (see above).
BUILT = "RELEASE_BUILD= DEB_BUILD= INTEROP_DEPS="


def make(target, *variables):
    return f"{MAKE} --no-print-directory {target} {BUILT} {' '.join(variables)}".strip()


class Stage:
    def __init__(self, name, lane, command, needs=()):
        self.name, self.lane, self.command, self.needs = name, lane, command, set(needs)
        self.process = self.log = None
        self.started = self.ended = None
        self.status = "waiting"


def stages(kind):
    """The stages of `kind`, the most wanted first."""
    quick = [
        Stage("architecture", "test", make("architecture")),
        Stage("generated-check", "test", make("generated-check")),
        Stage("docs-check", "test", make("docs-check")),
        Stage("swift-build", "build", make("swift-build")),
        # make check leaves out the long tests (INTRAPUSH_LONG_TESTS), which make test runs.
        Stage("swift-test", "test", ("" if kind == "check" else "INTRAPUSH_LONG_TESTS=1 ") + make("swift-test-run"),
              needs=["swift-build"]),
        # Beside the Swift tests in make check; in make test, at the start of the test lane, which
        # otherwise waits for the first build.
        Stage("fuzz-smoke", "build" if kind == "check" else "test", make("fuzz-smoke")),
    ]
    if kind == "check":
        return quick
    release_tests = ["server-conformance", "hostile", "local-api-conformance", "notifier-test", "powercut-smoke", "bench-smoke"]
    full = [
        Stage("release", "build", make("release")),
        Stage("deb", "build", make("deb"), needs=["release"]),
        Stage("system-test-roots", "fetch", "if [ $(id -u) != 0 ]; then echo 'skipped: debootstrap needs root'; "
              "else for release in ${SYSTEM_TEST_RELEASES:-bookworm trixie}; do "
              "packaging/tests/system-test-root.sh $release || exit 1; done; fi"),
        Stage("interop-deps", "fetch", make("interop-deps")),
        *[Stage(name, "test", make(name), needs=["release"]) for name in release_tests],
        Stage("interop", "test", make("interop"), needs=["release", "interop-deps"]),
        Stage("deb-test", "test", make("deb-test"), needs=["deb"]),
        Stage("system-test", "test", make("system-test"), needs=["deb", "system-test-roots", "previous-debs"]),
    ]
    # The releases before, for the system test's upgrades: in make test those the machine kept
    # (make ci built them before), in CI built when none is kept.
    previous = Stage("previous-debs", "fetch" if kind == "test" else "build",
                     "scripts/previous_deb.sh" + (" --kept" if kind == "test" else "") + " || echo "
                     "'previous-debs: a package of a release before could not be built; the system test skips the "
                     "upgrade from it'")
    # Architecture, the generated files and the docs first: a mistake there shows in seconds; the
    # fuzz harnesses then, while the first build runs; the release build before the debug one,
    # since more tests wait for it.
    ordered = quick[:3] + [quick[5]] + full[:4] + [previous, quick[3]] + full[4:] + [quick[4]]
    if kind == "ci":
        # In CI the releases before are built before the debug build, so that the system test,
        # which waits for them, is not the last stage. Then the checkout's packages (the tree as
        # committed) compared with the same built once more elsewhere.
        ordered.append(Stage("reproducible-check", "build", make("reproducible-check", "REPRODUCIBLE_CHECK_FLAGS=--here"),
                             needs=["deb"]))
    return ordered


def clock(seconds):
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def start(stage, began):
    os.makedirs(LOGS, exist_ok=True)
    stage.log = open(os.path.join(LOGS, stage.name + ".log"), "wb")
    command = f"nice -n 10 bash -c {quote(stage.command)}" if stage.lane == "build" else stage.command
    stage.process = subprocess.Popen(["bash", "-o", "pipefail", "-c", command], cwd=ROOT, stdout=stage.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
    stage.started, stage.status = time.monotonic(), "running"
    print(f"==> {clock(stage.started - began)} {stage.name} ({stage.lane}): {stage.command}", flush=True)


def quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def finish(stage, code, began):
    stage.ended = time.monotonic()
    stage.status = "passed" if code == 0 else f"FAILED ({code})"
    stage.log.close()
    with open(stage.log.name, "rb") as log:
        sys.stdout.write(f"---- {stage.name} ----\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(log.read())
    print(f"<== {clock(stage.ended - began)} {stage.name}: {stage.status} after {clock(stage.ended - stage.started)}"
          f" (log: .build/stages/{stage.name}.log)", flush=True)


def report(kind, plan, began):
    ended = time.monotonic()
    rows = [f"{'stage':<22} {'lane':<6} {'start':>6} {'took':>6}  result"]
    with open(os.path.join(LOGS, "times.tsv"), "w") as times:
        for stage in plan:
            took = stage.ended - stage.started if stage.ended else None
            rows.append(f"{stage.name:<22} {stage.lane:<6} {clock(stage.started - began) if stage.started else '-':>6} "
                        f"{clock(took) if took is not None else '-':>6}  {stage.status}")
            times.write(f"{stage.name}\t{stage.lane}\t{(stage.started or began) - began:.1f}\t{took or 0:.1f}\t{stage.status}\n")
    lanes = {}
    for stage in plan:
        if stage.ended:
            lanes[stage.lane] = lanes.get(stage.lane, 0) + stage.ended - stage.started
    print(f"\n== make {kind}: the stages' times ==")
    print("\n".join(rows))
    print(f"make {kind}: {clock(ended - began)} in all on {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f} at the end; each lane's stages one after the other: "
          + ", ".join(f"{lane} {clock(seconds)}" for lane, seconds in sorted(lanes.items())), flush=True)


def run(kind):
    plan = stages(kind)
    began = time.monotonic()
    keep_going = os.environ.get("STAGES_KEEP_GOING") == "1"
    failed = False

    def interrupted(signum, frame):
        for stage in plan:
            if stage.status == "running":
                os.killpg(stage.process.pid, signal.SIGTERM)
        sys.exit(130)

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    while True:
        busy = {stage.lane for stage in plan if stage.status == "running"}
        passed = {stage.name for stage in plan if stage.status == "passed"}
        if not failed or keep_going:
            for stage in plan:
                if stage.status == "waiting" and stage.lane not in busy and stage.needs <= passed:
                    start(stage, began)
                    busy.add(stage.lane)
        running = [stage for stage in plan if stage.status == "running"]
        if not running:
            break
        pid, code = os.waitpid(-1, 0)
        for stage in running:
            if stage.process.pid == pid:
                stage.process.returncode = code
                finish(stage, os.waitstatus_to_exitcode(code), began)
                failed = failed or stage.status != "passed"
    for stage in plan:
        if stage.status == "waiting":
            stage.status = "not run" + (" (a stage it needs failed)" if not stage.needs <= {
                s.name for s in plan if s.status == "passed"} else "")
    report(kind, plan, began)
    broken = [stage.name for stage in plan if stage.status not in ("passed",)]
    if broken:
        print(f"make {kind}: FAILED or not run: {', '.join(broken)}", file=sys.stderr)
        return 1
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "test", "ci"):
        sys.exit(__doc__)
    if "--list" in sys.argv[2:]:
        for stage in stages(sys.argv[1]):
            print(f"{stage.name:<22} {stage.lane:<6} needs {', '.join(sorted(stage.needs)) or '-'}: {stage.command}")
        return 0
    return run(sys.argv[1])


if __name__ == "__main__":
    sys.exit(main())
