/// Whether the daemon may dial, from the network's changes: the pure part of issue 6's network
/// awareness, for the session to act on.
///
/// The shell around it checks, after each coalesced `NetworkChange`, whether a route to the
/// server exists (`RouteCheck`) and reports both; the returned action says what the session does:
///
/// | before      | route now | change                    | action              |
/// | ----------- | --------- | ------------------------- | ------------------- |
/// | unavailable | yes       | any                       | `.dialNow`          |
/// | available   | no        | any                       | `.holdDialing`      |
/// | available   | yes       | something appeared        | `.dialNow`          |
/// | available   | yes       | only disappearances       | `.verifyConnection` |
/// | unavailable | no        | any                       | `.none`             |
///
/// `.dialNow` is harmless for a connected session (it pings instead of dialling), so a
/// flapping interface costs at most one dial per time it comes back.
package struct NetworkAvailability: Sendable, Equatable {
    package enum Action: Sendable, Equatable {
        /// A disconnected session dials at once, skipping its backoff
        /// (`SessionStateMachine.networkBecameAvailable()`); a connected one pings now to verify
        /// its connection instead of waiting out the dead-peer timeout.
        case dialNow
        /// No route to the server: do not dial; `STATUS=` says "waiting for network". An open
        /// connection is verified with a ping (it may still work, e.g. over a route we missed).
        case holdDialing
        /// Something went away but a route remains: a connected session pings now.
        case verifyConnection
        case none
    }

    /// `true` while a route to the server exists, as last reported.
    package private(set) var isAvailable: Bool

    /// - Parameter isAvailable: the first `RouteCheck` result, taken at start.
    package init(isAvailable: Bool) {
        self.isAvailable = isAvailable
    }

    /// The monitor reported `change`; `routeAvailable` is the route check made after it.
    package mutating func networkChanged(_ change: NetworkChange, routeAvailable: Bool) -> Action {
        let wasAvailable = isAvailable
        isAvailable = routeAvailable
        switch (wasAvailable, routeAvailable) {
        case (false, true): return .dialNow
        case (true, false): return .holdDialing
        case (false, false): return .none
        case (true, true):
            if change.hasAppeared { return .dialNow }
            return change.hasDisappeared ? .verifyConnection : .none
        }
    }

    /// A route check made for another reason (before a dial, on a timer) found `routeAvailable`.
    package mutating func routeChecked(available routeAvailable: Bool) -> Action {
        networkChanged([], routeAvailable: routeAvailable)
    }
}
