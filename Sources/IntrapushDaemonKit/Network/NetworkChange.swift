/// What changed in the network since the last report, coalesced: a burst of netlink messages
/// (a link coming up brings its addresses and routes within milliseconds) becomes one value.
package struct NetworkChange: OptionSet, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// An interface became up with carrier (`IFF_UP` and `IFF_RUNNING`), or a new one appeared so.
    package static let linkUp = NetworkChange(rawValue: 1 << 0)
    /// An interface lost carrier, was set down, or was removed.
    package static let linkDown = NetworkChange(rawValue: 1 << 1)
    package static let addressAdded = NetworkChange(rawValue: 1 << 2)
    package static let addressRemoved = NetworkChange(rawValue: 1 << 3)
    /// A unicast route appeared outside the `local` table (a default route, a subnet's route).
    package static let routeAdded = NetworkChange(rawValue: 1 << 4)
    package static let routeRemoved = NetworkChange(rawValue: 1 << 5)

    /// Notifications were lost: assume everything changed.
    package static let everything: NetworkChange = [
        .linkUp, .linkDown, .addressAdded, .addressRemoved, .routeAdded, .routeRemoved,
    ]

    /// A link, address or route appeared: a disconnected daemon should dial now, without waiting out its backoff.
    package var hasAppeared: Bool { !isDisjoint(with: [.linkUp, .addressAdded, .routeAdded]) }
    /// Something went away: an open connection may be dead.
    package var hasDisappeared: Bool { !isDisjoint(with: [.linkDown, .addressRemoved, .routeRemoved]) }

    package var isLinkChange: Bool { !isDisjoint(with: [.linkUp, .linkDown]) }
    package var isAddressChange: Bool { !isDisjoint(with: [.addressAdded, .addressRemoved]) }
    package var isRouteChange: Bool { !isDisjoint(with: [.routeAdded, .routeRemoved]) }

    /// For the debug log: `link up, route added`.
    package var description: String {
        let names: [(NetworkChange, String)] = [
            (.linkUp, "link up"), (.linkDown, "link down"), (.addressAdded, "address added"),
            (.addressRemoved, "address removed"), (.routeAdded, "route added"), (.routeRemoved, "route removed"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "no change" : present.joined(separator: ", ")
    }
}
