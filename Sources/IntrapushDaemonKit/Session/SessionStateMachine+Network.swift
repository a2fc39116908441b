// SPDX-License-Identifier: Apache-2.0

/// Network awareness: no dialling without a route to the server, an immediate dial when one
/// appears, a verifying ping when the network changes under an open connection.
extension SessionStateMachine {
    /// A route to the server exists after a link, address or route appeared: a disconnected
    /// session dials at once, skipping its backoff (the failure count stays); an open connection
    /// is verified, since the path it took may have changed.
    package mutating func networkBecameAvailable() -> [Action] {
        noteRoute(available: true)
        switch state {
        case .waiting(let attempt, _, let probe), .waitingForNetwork(let attempt, _, let probe):
            return (probe.map { [.discard($0)] } ?? []) + dial(failures: attempt)
        case .connected(let id, _, _, _, _):
            return [.verifyConnection(id)]
        default:
            return []
        }
    }

    /// No usable route to the server any more: stop dialling until one appears. An open
    /// connection is verified (it may survive, over a route the check does not see); a dial in
    /// progress is left to end on its own, and its failure then waits for the network.
    package mutating func networkBecameUnavailable() -> [Action] {
        noteRoute(available: false)
        switch state {
        case .waiting(let attempt, let lastFailure, let probe):
            return holdForNetwork(attempt: attempt, lastFailure: lastFailure, probe: probe)
        case .connected(let id, _, _, _, _):
            return [.verifyConnection(id)]
        default:
            return []
        }
    }

    /// Something went away (a link, an address, a route) but a route to the server remains:
    /// an open connection may have lost its path, so it is verified now.
    package mutating func networkChanged() -> [Action] {
        guard case .connected(let id, _, _, _, _) = state else { return [] }
        return [.verifyConnection(id)]
    }

    /// The network monitor started before `started()`; without a route, `started()` then waits
    /// for one instead of dialling. Without a monitor this is never called and the network
    /// counts as available: the machine is then the plain backoff described above.
    package mutating func networkWatchStarted(routeAvailable: Bool) -> [Action] {
        guard case .idle = state else { return [] }  // the watch starts before the session
        state = .idle(routeAvailable: routeAvailable)
        return []
    }

    /// A route check found `available`, after the monitor reported `change` (empty for a check
    /// made before a dial, after a reload or on a timer):
    ///
    /// | before      | route now | change                    | as                           |
    /// | ----------- | --------- | ------------------------- | ---------------------------- |
    /// | unavailable | yes       | any                       | `networkBecameAvailable()`   |
    /// | available   | no        | any                       | `networkBecameUnavailable()` |
    /// | available   | yes       | something appeared        | `networkBecameAvailable()`   |
    /// | available   | yes       | only disappearances       | `networkChanged()`           |
    /// | unavailable | no        | any                       | nothing                      |
    ///
    /// A route that appears makes a connected session ping rather than dial, so a flapping
    /// interface costs at most one dial per time it comes back.
    mutating func routeChecked(available: Bool, after change: NetworkChange = []) -> [Action] {
        switch (isNetworkAvailable, available) {
        case (false, true): return networkBecameAvailable()
        case (true, false): return networkBecameUnavailable()
        case (false, false): return []
        case (true, true):
            if change.hasAppeared { return networkBecameAvailable() }
            return change.hasDisappeared ? networkChanged() : []
        }
    }

    /// The periodic look while waiting for the network found no route yet: wait on, and keep
    /// what `intrapush status` shows fresh.
    package mutating func networkRecheckDue() -> [Action] {
        guard case .waitingForNetwork(let attempt, let lastFailure, let probe) = state else { return [] }
        return holdForNetwork(attempt: attempt, lastFailure: lastFailure, probe: probe)
    }

    /// Keeps the shell's last word on the route in the states that carry it (waiting implies
    /// one, waiting for the network none: those change state instead).
    private mutating func noteRoute(available: Bool) {
        switch state {
        case .idle:
            state = .idle(routeAvailable: available)
        case .connecting(let id, let failures, _):
            state = .connecting(id, failures: failures, routeAvailable: available)
        case .connected(let id, let since, let failback, let failures, _):
            state = .connected(id, since: since, failback: failback, failures: failures, routeAvailable: available)
        case .closing(let id, let isOpen, let thenReconnect, _):
            state = .closing(id, isOpen: isOpen, thenReconnect: thenReconnect, routeAvailable: available)
        case .waiting, .waitingForNetwork, .stopped:
            break
        }
    }
}
