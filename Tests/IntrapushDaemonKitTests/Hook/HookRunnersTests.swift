// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Logging
import Testing

@testable import IntrapushConfiguration
@testable import IntrapushDaemonKit

@Suite("The daemon's hook runners across reloads")
struct HookRunnersTests {
    /// A reload replaces the runner only when the command changed, and counts survive the swap.
    @Test("an unchanged command keeps the runner; a changed one retires it and keeps its counts")
    func reloadSwapsOnlyOnChange() async throws {
        let fixture = try HookTestFixture()
        let logger = Logger(label: "runners-test") { _ in CapturedLogHandler(logs: fixture.logs) }
        var runners = HookRunners(command: try HookCommandLine(parsing: "/bin/true"), logger: logger)
        let first = try #require(runners.current)
        let unchanged = runners.reloaded(command: try HookCommandLine(parsing: "/bin/true"))
        #expect(!unchanged.changed && unchanged.retired == nil)
        #expect(runners.current === first)

        first.submit(notification(1))
        #expect(await eventually { first.counters.succeeded == 1 })
        let (changed, retired) = runners.reloaded(command: try HookCommandLine(parsing: "/bin/false"))
        #expect(changed && retired === first)
        let second = try #require(runners.current)
        #expect(second !== first)
        await HookRunners.retire(first)
        second.submit(notification(2))
        #expect(await eventually { second.counters.failed == 1 })
        #expect(runners.counters.started == 2 && runners.counters.succeeded == 1 && runners.counters.failed == 1)

        #expect(runners.reloaded(command: nil).changed)
        #expect(runners.current == nil && !runners.isEmpty, "no hook, but its counts are still reported")
        await runners.shutdown()
    }

    /// The daemon stopping while a replaced runner lets its hooks finish: the later, shorter
    /// deadline wins, so the stop is not held up by the long one.
    @Test("a second shutdown brings the deadline forward")
    func secondShutdownShortensTheDeadline() async throws {
        let fixture = try HookTestFixture()
        let runner = try fixture.runner(try fixture.script("sleep", "exec sleep 30"))
        runner.submit(notification(1))
        #expect(await eventually { runner.counters.started == 1 })
        let start = ContinuousClock.now
        await withDiscardingTaskGroup { group in
            group.addTask { await runner.shutdown(gracePeriod: .seconds(60)) }
            try? await Task.sleep(for: .milliseconds(100))
            await runner.shutdown(gracePeriod: .milliseconds(200))
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(runner.counters.failed == 1, "killed at the shorter deadline")
    }
}
