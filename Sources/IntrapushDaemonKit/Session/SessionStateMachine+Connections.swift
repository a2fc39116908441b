// SPDX-License-Identifier: Apache-2.0

/// The events of dials and connections, each under the id the machine gave it: the machine
/// decides what an event means for the session, and what one of an id it no longer waits for
/// means (the shell routes nothing itself).
extension SessionStateMachine {
    /// Dial `id` opened.
    package mutating func connectionEstablished(_ id: ConnectionID, at now: Instant) -> [Action] {
        if id == probeID { return primaryProbeSucceeded(id, at: now) }
        switch state {
        case .connecting(id, let failures, let routeAvailable):
            rotation.connected()
            opened(id, at: now, failures: failures, routeAvailable: routeAvailable)
            guard case .connected(_, _, .scheduled, _, _) = state, let interval = failbackInterval else {
                return [.useConnection(id)]
            }
            return [.useConnection(id), .scheduleFailback(after: interval)]
        case .closing(id, isOpen: false, let thenReconnect, let routeAvailable):
            // Shutdown or reload came while dialling: close what just opened.
            state = .closing(id, isOpen: true, thenReconnect: thenReconnect, routeAvailable: routeAvailable)
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
        case .connecting(id, let failures, let routeAvailable):
            return scheduleRetry(after: reason, at: now, failures: failures, routeAvailable: routeAvailable)
        case .closing(id, isOpen: false, let thenReconnect, let routeAvailable):
            return finishClosing(thenReconnect: thenReconnect, routeAvailable: routeAvailable)
        default:
            return []
        }
    }

    /// Connection `id` ended (any cause, including a close we asked for).
    package mutating func connectionLost(_ id: ConnectionID, _ reason: DisconnectReason, at now: Instant) -> [Action] {
        if id == probeID { return primaryProbeFailed(id, reason, at: now) }
        switch state {
        case .connected(id, let since, let failback, let failures, let routeAvailable):
            // Only a connection that stayed up `reconnect_max` clears the count.
            let counted = now - since >= backoff.maximum ? 0 : failures
            // A probe of the primary under way goes on: if it opens first, it is taken.
            let probe: ConnectionID? = if case .probing(let probe) = failback { probe } else { nil }
            return scheduleRetry(after: reason, at: now, failures: counted, routeAvailable: routeAvailable, probe: probe)
        case .connecting(id, let failures, let routeAvailable):
            // The connection's end overtook the dial's success (they travel separately: a push
            // that could not be stored right after the open, say). A failed attempt, then; the
            // success that follows is discarded.
            return scheduleRetry(after: reason, at: now, failures: failures, routeAvailable: routeAvailable)
        case .closing(id, _, let thenReconnect, let routeAvailable):
            return finishClosing(thenReconnect: thenReconnect, routeAvailable: routeAvailable)
        default:
            // A fallback drained after the switch, or a dial given up on.
            return []
        }
    }
}
