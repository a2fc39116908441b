// SPDX-License-Identifier: Apache-2.0

/// Returning to the primary from a fallback, make-before-break: the primary's dial runs beside
/// the open connection, and only once it is up is the fallback's drained and closed.
extension SessionStateMachine {
    /// The failback timer ran out: try the primary beside the open connection.
    package mutating func failbackDue() -> [Action] {
        guard case .connected(let id, let since, .scheduled, let failures, let routeAvailable) = state,
            rotation.isOnFallback
        else { return [] }
        let probe = connectionIDs.next()
        state = .connected(id, since: since, failback: .probing(probe), failures: failures, routeAvailable: routeAvailable)
        return [.probePrimary(probe)]
    }

    /// The primary answered the probe: it becomes the connection, also when the fallback was
    /// lost meanwhile.
    mutating func primaryProbeSucceeded(_ probe: ConnectionID, at now: Instant) -> [Action] {
        let fallback = openConnectionID
        rotation.returnedToPrimary()
        opened(probe, at: now, failures: consecutiveFailures, routeAvailable: isNetworkAvailable)
        return [.switchToPrimary(from: fallback, to: probe)]
    }

    /// The primary is still unreachable: stay, and try again after `failbackInterval` (or later,
    /// when it asked for a longer wait).
    mutating func primaryProbeFailed(_ probe: ConnectionID, _ reason: DisconnectReason, at now: Instant) -> [Action] {
        rotation.primaryFailed(at: now)
        switch state {
        case .connected(let id, let since, .probing(probe), let failures, let routeAvailable):
            state = .connected(id, since: since, failback: .scheduled, failures: failures, routeAvailable: routeAvailable)
            guard let interval = failbackInterval else { return [] }
            if let hint = reason.retryAfter {
                return [.scheduleFailback(after: max(interval, backoff.delay(afterHint: hint, attempt: 1, using: &random)))]
            }
            return [.scheduleFailback(after: interval)]
        case .waiting(let attempt, let lastFailure, probe):
            state = .waiting(attempt: attempt, lastFailure: lastFailure, probe: nil)
            return []
        case .waitingForNetwork(let attempt, let lastFailure, probe):
            state = .waitingForNetwork(attempt: attempt, lastFailure: lastFailure, probe: nil)
            return []
        default:
            return []
        }
    }
}
