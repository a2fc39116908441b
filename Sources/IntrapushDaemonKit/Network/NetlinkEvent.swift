// SPDX-License-Identifier: Apache-2.0

/// One rtnetlink notification, reduced to what reaching the server depends on.
enum NetlinkEvent: Sendable, Equatable {
    /// RTM_NEWLINK or RTM_DELLINK (`isRemoved`): an interface, its administrative state
    /// (`IFF_UP`) and whether it has carrier (`IFF_RUNNING`).
    case link(index: Int32, isUp: Bool, isRunning: Bool, isLoopback: Bool, isRemoved: Bool)
    /// RTM_NEWADDR or RTM_DELADDR: an address of `family` (`AF_INET`, `AF_INET6`) on an interface.
    case address(index: Int32, family: UInt8, isRemoved: Bool)
    /// RTM_NEWROUTE or RTM_DELROUTE; `destinationPrefixLength` 0 is a default route.
    case route(family: UInt8, destinationPrefixLength: UInt8, table: UInt32, type: UInt8, isRemoved: Bool)
    /// The kernel dropped notifications (ENOBUFS, NLMSG_OVERRUN): anything may have changed.
    case overrun
}
