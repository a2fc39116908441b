// SPDX-License-Identifier: Apache-2.0

/// What changed in the network since the last report, coalesced: a burst of netlink messages
/// (a link coming up brings its addresses and routes within milliseconds) becomes one value.
struct NetworkChange: OptionSet, Sendable, Hashable, CustomStringConvertible {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// An interface became up with carrier (`IFF_UP` and `IFF_RUNNING`), or a new one appeared so.
    static let linkUp = NetworkChange(rawValue: 1 << 0)
    /// An interface lost carrier, was set down, or was removed.
    static let linkDown = NetworkChange(rawValue: 1 << 1)
    static let addressAdded = NetworkChange(rawValue: 1 << 2)
    static let addressRemoved = NetworkChange(rawValue: 1 << 3)
    /// A unicast route appeared outside the `local` table (a default route, a subnet's route).
    static let routeAdded = NetworkChange(rawValue: 1 << 4)
    static let routeRemoved = NetworkChange(rawValue: 1 << 5)

    /// Notifications were lost: assume everything changed.
    static let everything: NetworkChange = [
        .linkUp, .linkDown, .addressAdded, .addressRemoved, .routeAdded, .routeRemoved,
    ]

    /// A link, address or route appeared: a disconnected daemon should dial now, without waiting out its backoff.
    var hasAppeared: Bool { !isDisjoint(with: [.linkUp, .addressAdded, .routeAdded]) }
    /// Something went away: an open connection may be dead.
    var hasDisappeared: Bool { !isDisjoint(with: [.linkDown, .addressRemoved, .routeRemoved]) }

    var isLinkChange: Bool { !isDisjoint(with: [.linkUp, .linkDown]) }
    var isAddressChange: Bool { !isDisjoint(with: [.addressAdded, .addressRemoved]) }
    var isRouteChange: Bool { !isDisjoint(with: [.routeAdded, .routeRemoved]) }

    /// For the debug log: `link up, route added`.
    var description: String {
        let names: [(NetworkChange, String)] = [
            (.linkUp, "link up"), (.linkDown, "link down"), (.addressAdded, "address added"),
            (.addressRemoved, "address removed"), (.routeAdded, "route added"), (.routeRemoved, "route removed"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "no change" : present.joined(separator: ", ")
    }
}
