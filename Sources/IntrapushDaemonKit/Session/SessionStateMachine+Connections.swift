/// The events of dials and connections, each under the id the machine gave it: the machine
/// decides what an event means for the session, and what one of an id it no longer waits for
/// means (the shell routes nothing itself).
extension SessionStateMachine {
    /// Dial `id` opened.
    package mutating func connectionEstablished(_ id: ConnectionID, at now: Instant) -> [Action] {
        if id == probeID { return primaryProbeSucceeded(id, at: now) }
        switch state {
        case .connecting(id):
            opened(id, at: now)
            rotation.connected()
            let failback: [Action] = state == .connected(id, since: now, failback: .scheduled)
                ? failbackInterval.map { [.scheduleFailback(after: $0)] } ?? [] : []
            return [.useConnection(id)] + failback
        case .closing(id, isOpen: false, let thenReconnect):
            // Shutdown or reload came while dialling: close what just opened.
            state = .closing(id, isOpen: true, thenReconnect: thenReconnect)
            return [.closeConnection(id, reason: thenReconnect ? .reconfigured : .shuttingDown)]
        default:
            // A dial given up on (a probe let go, a dial whose end came first): not ours any more.
            return [.discard(id)]
        }
    }

    /// Dial `id` ended before it opened.
    package mutating func connectionFailed(_ id: ConnectionID, _ reason: DisconnectReason, at now: Instant) -> [Action] {
        if id == probeID { return primaryProbeFailed(id, reason, at: now) }
        switch state {
        case .connecting(id):
            return scheduleRetry(after: reason, at: now)
        case .closing(id, isOpen: false, let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            return []
        }
    }

    /// Connection `id` ended (any cause, including a close we asked for).
    package mutating func connectionLost(_ id: ConnectionID, _ reason: DisconnectReason, at now: Instant) -> [Action] {
        if id == probeID { return primaryProbeFailed(id, reason, at: now) }
        switch state {
        case .connected(id, let since, let failback):
            if now - since >= backoff.maximum { consecutiveFailures = 0 }
            // A probe of the primary under way goes on: if it opens first, it is taken.
            guard case .probing(let probe) = failback else { return scheduleRetry(after: reason, at: now) }
            return scheduleRetry(after: reason, at: now, probe: probe)
        case .connecting(id):
            // The connection's end overtook the dial's success (they travel separately: a push
            // that could not be stored right after the open, say). A failed attempt, then; the
            // success that follows is discarded.
            return scheduleRetry(after: reason, at: now)
        case .closing(id, _, let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            // A fallback drained after the switch, or a dial given up on.
            return []
        }
    }
}
