// SPDX-License-Identifier: Apache-2.0

/// Waits until `condition` holds, looking every `interval`; throws `WaitTimedOut` after
/// `timeout`. The one way the tests wait for something another thread or process does.
package func eventually(
    timeout: Duration = .seconds(15), interval: Duration = .milliseconds(20),
    _ what: @autoclosure () -> String = "condition",
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    if try await condition() { return }
    throw WaitTimedOut(what: what(), timeout: timeout)
}

/// `eventually` as a truth value, for `#expect(await eventually(within: …) { … })`.
package func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    do {
        try await eventually(timeout: timeout) { condition() }
        return true
    } catch {
        return false
    }
}

package struct WaitTimedOut: Error, CustomStringConvertible {
    package var what: String
    package var timeout: Duration
    package var description: String { "timed out after \(timeout) waiting for \(what)" }

    package init(what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }
}
