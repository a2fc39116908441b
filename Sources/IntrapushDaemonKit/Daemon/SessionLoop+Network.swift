import Logging

/// Network awareness (issue 6): no dialling without a route to the server, an immediate dial
/// when one appears, a verifying ping when the network changes under an open connection.
/// The decisions are `NetworkAvailability`'s and `SessionStateMachine`'s; this only checks the
/// route (`RouteCheck`, a system call, no packet sent) and hands the results over.
extension SessionLoop {
    /// Seeds the availability before the first dial; `isMonitored` when the netlink monitor runs.
    mutating func watchNetwork(isMonitored: Bool) {
        guard isMonitored else { return }
        let available = hasRouteToServer()
        network = NetworkAvailability(isAvailable: available)
        // Before started(): the machine only notes it, and started() then waits instead of dialling.
        if !available { _ = machine.networkBecameUnavailable() }
    }

    /// The monitor reported a change: check the route again and act on what it amounts to.
    mutating func networkChanged(_ change: NetworkChange, tasks: inout DiscardingTaskGroup) {
        guard var network else { return }
        let action = network.networkChanged(change, routeAvailable: hasRouteToServer())
        self.network = network
        logger.debug("network changed (\(change)); route to \(configuration.host): \(network.isAvailable ? "yes" : "no")")
        if action == .dialNow, machine.isWaitingToDial {
            logger.info("network changed (\(change)): connecting now")
        }
        apply(action, tasks: &tasks)
    }

    /// Before a dial the backoff asked for, and after a reload: is there a route at all? A
    /// change the monitor missed is caught here.
    mutating func checkRoute(tasks: inout DiscardingTaskGroup) {
        guard var network else { return }
        let action = network.routeChecked(available: hasRouteToServer())
        self.network = network
        apply(action, tasks: &tasks)
    }

    /// While waiting for the network, a periodic look: keeps the live state fresh for
    /// `intrapush status`, and catches a route that appeared without a netlink message.
    mutating func recheckNetwork(tasks: inout DiscardingTaskGroup) {
        checkRoute(tasks: &tasks)
        if case .waitingForNetwork(let attempt) = machine.state {
            perform(.waitForNetwork(attempt: attempt), tasks: &tasks)
        }
    }

    private mutating func apply(_ action: NetworkAvailability.Action, tasks: inout DiscardingTaskGroup) {
        switch action {
        case .dialNow:
            perform(machine.networkBecameAvailable(), tasks: &tasks)
        case .holdDialing:
            perform(machine.networkBecameUnavailable(), tasks: &tasks)
        case .verifyConnection:
            perform(machine.networkChanged(), tasks: &tasks)
        case .none:
            break
        }
    }

    func hasRouteToServer() -> Bool {
        RouteCheck.hasRoute(toHost: configuration.endpoint.host, port: configuration.endpoint.port)
    }
}

extension SessionStateMachine {
    /// Disconnected and not dialling: a route appearing makes it dial.
    var isWaitingToDial: Bool {
        switch state {
        case .waiting, .waitingForNetwork: return true
        default: return false
        }
    }
}
