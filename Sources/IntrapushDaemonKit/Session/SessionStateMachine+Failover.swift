/// Returning to the primary from a fallback, make-before-break: the primary's dial runs beside
/// the open connection, and only once it is up is the fallback's drained and closed.
extension SessionStateMachine {
    /// The failback timer ran out: try the primary beside the open connection.
    package mutating func failbackDue() -> [Action] {
        guard case .connected(let id, let since, .scheduled) = state, rotation.isOnFallback else { return [] }
        let probe = newProbeID()
        state = .connected(id, since: since, failback: .probing(probe))
        return [.probePrimary(probe)]
    }

    /// The primary answered the probe: it becomes the connection, also when the fallback was
    /// lost meanwhile.
    mutating func primaryProbeSucceeded(_ probe: ConnectionID, at now: Instant) -> [Action] {
        let fallback = openConnectionID
        rotation.returnedToPrimary()
        opened(probe, at: now)
        return [.switchToPrimary(from: fallback, to: probe)]
    }

    /// The primary is still unreachable: stay, and try again after `failbackInterval` (or later,
    /// when it asked for a longer wait).
    mutating func primaryProbeFailed(_ probe: ConnectionID, _ reason: DisconnectReason, at now: Instant) -> [Action] {
        rotation.primaryFailed(at: now)
        switch state {
        case .connected(let id, let since, .probing(probe)):
            state = .connected(id, since: since, failback: .scheduled)
            guard let interval = failbackInterval else { return [] }
            if let hint = reason.retryAfter {
                return [.scheduleFailback(after: max(interval, backoff.delay(afterHint: hint, attempt: 1, using: &random)))]
            }
            return [.scheduleFailback(after: interval)]
        case .waiting(let attempt, probe):
            state = .waiting(attempt: attempt, probe: nil)
            return []
        case .waitingForNetwork(let attempt, probe):
            state = .waitingForNetwork(attempt: attempt, probe: nil)
            return []
        default:
            return []
        }
    }
}
