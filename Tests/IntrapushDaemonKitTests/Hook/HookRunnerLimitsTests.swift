// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

@testable import IntrapushDaemonKit

@Suite("Hook runner: timeouts, the concurrency cap, the queue and shutdown")
struct HookRunnerLimitsTests {
    /// Whether `pid` is gone (or only a zombie waiting for its new parent to reap it).
    func isGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    @Test("a hook past its timeout gets SIGTERM, its background children too, and counts as timed out")
    func timeoutTerminatesTheGroup() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("slow.sh", #"sleep 30 & echo $! > "$DIR/child.pid"; wait"#)
        // Long enough for the shell to start its child before the timeout on a loaded machine.
        let runner = try fixture.runner(hook, settings: .init(timeout: .seconds(2), killGracePeriod: .seconds(60)))
        let start = ContinuousClock.now
        runner.submit(notification(1))
        #expect(await eventually(within: .seconds(30)) { runner.counters.timedOut == 1 })
        // SIGTERM was enough: it did not take the SIGKILL grace period (bounds generous for a busy machine).
        #expect(ContinuousClock.now - start < .seconds(30))
        await runner.shutdown()

        let child = try #require(fixture.contents("child.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(await eventually(within: .seconds(5)) { isGone(child) })
        #expect(runner.counters.failed == 0 && runner.counters.succeeded == 0)
        let warning = fixture.logs.entries.first { $0.message.hasPrefix("hook timed out") }
        #expect(warning?.level == .warning)
        #expect(warning?.metadata["status"] == "killed by signal 15 (SIGTERM)")
    }

    @Test("a hook that ignores SIGTERM gets SIGKILL after the grace period")
    func killAfterGrace() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("stubborn.sh", #"trap '' TERM; sleep 30 & echo $! > "$DIR/child.pid"; wait; sleep 30"#)
        // Long enough for the shell to set its trap before the timeout on a loaded machine.
        let runner = try fixture.runner(hook, settings: .init(timeout: .seconds(1), killGracePeriod: .milliseconds(500)))
        let start = ContinuousClock.now
        runner.submit(notification(1))
        #expect(await eventually(within: .seconds(30)) { runner.counters.timedOut == 1 })
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(1500) && elapsed < .seconds(30))
        await runner.shutdown()
        let child = try #require(fixture.contents("child.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(await eventually(within: .seconds(5)) { isGone(child) })
        #expect(fixture.logs.entries.contains { $0.metadata["status"] == "killed by signal 9 (SIGKILL)" })
    }

    /// Each hook appends + when it starts and - when it ends; replaying the file gives the peak.
    /// The hooks wait for the test's release, so that the cap is reached whatever the machine's
    /// pace, and a fifth would have to start while four run.
    @Test("never more than the cap run at once, and the cap is reached")
    func concurrencyCap() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("busy.sh", #"""
            echo + >> "$DIR/events"
            while [ ! -e "$DIR/release" ]; do sleep 0.02; done
            echo - >> "$DIR/events"
            """#)
        let runner = try fixture.runner(hook)
        for id in 1...10 { runner.submit(notification(Int64(id))) }
        #expect(await eventually(within: .seconds(20)) { (fixture.contents("events") ?? "").filter { $0 == "+" }.count == 4 })
        #expect(runner.counters.started == 4)
        _ = FileManager.default.createFile(atPath: fixture.path("release"), contents: nil)
        #expect(await eventually(within: .seconds(20)) { runner.counters.succeeded == 10 })
        await runner.shutdown()

        var alive = 0
        var peak = 0
        for event in (fixture.contents("events") ?? "").split(separator: "\n") {
            alive += event == "+" ? 1 : -1
            peak = max(peak, alive)
        }
        #expect(peak == 4)
        #expect(runner.counters.started == 10)
        #expect(runner.counters.dropped == 0)
    }

    @Test("past the queue's bound the oldest waiting notifications are dropped, counted and logged")
    func dropOldest() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("gate.sh", #"""
            echo "$INTRAPUSH_ID" >> "$DIR/ran"
            while [ ! -e "$DIR/release" ]; do sleep 0.02; done
            """#)
        let runner = try fixture.runner(hook, settings: .init(maximumConcurrentRuns: 1, queueCapacity: 2))
        for id in 1...6 { runner.submit(notification(Int64(id))) }
        // 1 holds the slot, 2 and 3 wait; 4, 5 and 6 each push out the oldest waiting one.
        #expect(runner.counters.dropped == 3)
        _ = FileManager.default.createFile(atPath: fixture.path("release"), contents: nil)
        #expect(await eventually { runner.counters.succeeded == 3 })
        await runner.shutdown()

        #expect(fixture.contents("ran") == "1\n5\n6\n")
        let dropped = fixture.logs.entries.filter { $0.level == .warning && $0.message.hasPrefix("hook queue full") }
        #expect(dropped.map { $0.metadata["notification"] } == ["2", "3", "4"])
    }

    @Test("the waiting notifications are bounded in bytes too: large ones push out the oldest")
    func dropOldestByBytes() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("gate.sh", #"""
            echo "$INTRAPUSH_ID" >> "$DIR/ran"
            while [ ! -e "$DIR/release" ]; do sleep 0.02; done
            """#)
        let runner = try fixture.runner(hook, settings: .init(maximumConcurrentRuns: 1, queueCapacity: 1000, queueByteCapacity: 150_000))
        let large = String(repeating: "x", count: 100_000)
        for id in 1...5 { runner.submit(notification(Int64(id), messageID: nil, title: nil, body: large)) }
        // 1 holds the slot; each waiting record holds a 100 KB body, so only one fits the
        // 150 KB: 2, 3 and 4 are pushed out in turn.
        #expect(runner.counters.dropped == 3)
        _ = FileManager.default.createFile(atPath: fixture.path("release"), contents: nil)
        #expect(await eventually { runner.counters.succeeded == 2 })
        await runner.shutdown()
        #expect(fixture.contents("ran") == "1\n5\n")
    }

    /// The storing and acknowledging path calls `submit`: it must not wait for busy hooks.
    @Test("submit returns at once while every slot is busy, and shutdown kills what runs within its bound")
    func submitNeverBlocks() async throws {
        let fixture = try HookTestFixture()
        // Held until shutdown (not a timed sleep), so "four running" lasts however slow the machine is.
        let hook = try fixture.script("held.sh", #"echo started >> "$DIR/started"; while :; do sleep 0.05; done"#)
        let runner = try fixture.runner(hook, settings: .init(timeout: .seconds(600)))
        let start = ContinuousClock.now
        for id in 1...100 { runner.submit(notification(Int64(id))) }
        // A submit that waited for a slot would wait for the hooks' 600 s timeout: any bound far
        // below that tells, and a loaded machine's pauses stay far below it.
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(await eventually(within: .seconds(30)) { runner.counters.started == 4 })
        #expect(await eventually(within: .seconds(30)) { (fixture.contents("started") ?? "").split(separator: "\n").count == 4 })

        let stopping = ContinuousClock.now
        await runner.shutdown(gracePeriod: .milliseconds(200))
        #expect(ContinuousClock.now - stopping < .seconds(10))
        #expect(runner.counters == { var c = HookRunner.Counters(); c.started = 4; c.failed = 4; c.dropped = 96; return c }())
        runner.submit(notification(101))
        #expect(runner.counters.started == 4)
        #expect(fixture.logs.entries.filter { $0.message == "hook killed: the daemon is stopping" }.count == 4)
    }
}
