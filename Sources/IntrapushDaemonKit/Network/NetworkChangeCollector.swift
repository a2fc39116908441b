// SPDX-License-Identifier: Apache-2.0

import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Turns netlink events into `NetworkChange`s, keeping only transitions that matter. Pure.
///
/// The kernel repeats RTM_NEWLINK for many reasons (MTU, statistics, a flag that is not ours);
/// only an interface going from not usable to usable (up with carrier) or back is a change, so
/// the collector remembers which interfaces are usable. An interface seen for the first time
/// counts as appearing when it is usable. Routes in the `local` table (the kernel's own routes
/// for our addresses) and routes that are not unicast (broadcast, multicast, unreachable) do not
/// decide reachability and are left out.
struct NetworkChangeCollector: Sendable {
    private var usableLinks: [Int32: Bool] = [:]

    init() {}

    /// The change the events amount to; empty when none matters.
    mutating func collect(_ events: [NetlinkEvent]) -> NetworkChange {
        var change: NetworkChange = []
        for event in events {
            change.formUnion(collect(event))
        }
        return change
    }

    private mutating func collect(_ event: NetlinkEvent) -> NetworkChange {
        switch event {
        case .overrun:
            // What we knew of the links may be stale now.
            usableLinks.removeAll()
            return .everything
        case .link(let index, let isUp, let isRunning, _, let isRemoved):
            let wasUsable = usableLinks[index] ?? false
            let isUsable = isUp && isRunning && !isRemoved
            if isRemoved { usableLinks[index] = nil } else { usableLinks[index] = isUsable }
            if isUsable && !wasUsable { return .linkUp }
            if !isUsable && wasUsable { return .linkDown }
            return []
        case .address(_, _, let isRemoved):
            return isRemoved ? .addressRemoved : .addressAdded
        case .route(_, _, let table, let type, let isRemoved):
            guard table != UInt32(RT_TABLE_LOCAL.rawValue), Int(type) == Int(RTN_UNICAST) else { return [] }
            return isRemoved ? .routeRemoved : .routeAdded
        }
    }
}
