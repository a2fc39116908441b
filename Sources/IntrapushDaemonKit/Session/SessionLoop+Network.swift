// SPDX-License-Identifier: Apache-2.0

import Logging

/// Network awareness: no dialling without a route to the server, an immediate dial when one
/// appears, a verifying ping when the network changes under an open connection. The decisions
/// are `SessionStateMachine`'s; this only checks the route (`RouteCheck`, a system call, no
/// packet sent) and hands the result over.
extension SessionLoop {
    /// Before the first dial; `isMonitored` when the netlink monitor runs. Without a monitor
    /// nothing would tell us the network came back, so the daemon never holds its dialling.
    mutating func watchNetwork(isMonitored: Bool) {
        isNetworkMonitored = isMonitored
        guard isMonitored else { return }
        _ = machine.networkWatchStarted(routeAvailable: hasRouteToServer())
    }

    /// The monitor reported a change: check the route again and act on what it amounts to.
    mutating func networkChanged(_ change: NetworkChange, tasks: inout DiscardingTaskGroup) {
        guard isNetworkMonitored else { return }
        let available = hasRouteToServer()
        logger.debug("network changed (\(change)); route to \(configuration.host): \(available ? "yes" : "no")")
        let wasWaiting = machine.isWaitingToDial
        let action = machine.routeChecked(available: available, after: change)
        if wasWaiting, action.contains(where: { if case .connect = $0 { true } else { false } }) {
            logger.info("network changed (\(change)): connecting now")
        }
        perform(action, tasks: &tasks)
    }

    /// Before a dial the backoff asked for, and after a reload: is there a route at all? A
    /// change the monitor missed is caught here.
    mutating func checkRoute(tasks: inout DiscardingTaskGroup) {
        guard isNetworkMonitored else { return }
        perform(machine.routeChecked(available: hasRouteToServer()), tasks: &tasks)
    }

    /// While waiting for the network, a periodic look: keeps the live state fresh for
    /// `intrapush status`, and catches a route that appeared without a netlink message.
    mutating func recheckNetwork(tasks: inout DiscardingTaskGroup) {
        checkRoute(tasks: &tasks)
        perform(machine.networkRecheckDue(), tasks: &tasks)
    }

    func hasRouteToServer() -> Bool {
        RouteCheck.hasRoute(toHost: currentEndpoint.host, port: currentEndpoint.port)
    }
}
