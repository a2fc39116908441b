import CLinux
import Glibc
import Testing

@testable import IntrapushDaemonKit

@Suite("Network changes and availability")
struct NetworkChangeTests {
    static func link(_ index: Int32, up: Bool, running: Bool, removed: Bool = false) -> NetlinkEvent {
        .link(index: index, isUp: up, isRunning: running, isLoopback: false, isRemoved: removed)
    }

    /// Only transitions of "up with carrier" count; repeats of the same state are not changes.
    @Test("links: up with carrier, repeats, carrier loss, removal")
    func linkTransitions() {
        var collector = NetworkChangeCollector()
        #expect(collector.collect([Self.link(2, up: true, running: false)]) == [])
        #expect(collector.collect([Self.link(2, up: true, running: true)]) == .linkUp)
        #expect(collector.collect([Self.link(2, up: true, running: true)]) == [])
        #expect(collector.collect([Self.link(2, up: true, running: false)]) == .linkDown)
        #expect(collector.collect([Self.link(2, up: true, running: true), Self.link(2, up: true, running: true, removed: true)])
            == [.linkUp, .linkDown])
        #expect(collector.collect([Self.link(2, up: false, running: false, removed: true)]) == [])
    }

    /// Addresses always count; routes only in real tables and when unicast.
    @Test("addresses and routes; local-table and non-unicast routes are ignored")
    func addressesAndRoutes() {
        var collector = NetworkChangeCollector()
        let events: [NetlinkEvent] = [
            .address(index: 2, family: UInt8(AF_INET), isRemoved: false),
            .route(family: UInt8(AF_INET), destinationPrefixLength: 32, table: 255, type: UInt8(RTN_LOCAL), isRemoved: false),
            .route(family: UInt8(AF_INET), destinationPrefixLength: 24, table: 255, type: UInt8(RTN_UNICAST), isRemoved: false),
            .route(family: UInt8(AF_INET6), destinationPrefixLength: 8, table: 254, type: UInt8(RTN_MULTICAST), isRemoved: false),
        ]
        #expect(collector.collect(events) == .addressAdded)
        #expect(collector.collect([
            .route(family: UInt8(AF_INET), destinationPrefixLength: 0, table: 254, type: UInt8(RTN_UNICAST), isRemoved: false),
            .route(family: UInt8(AF_INET6), destinationPrefixLength: 64, table: 51820, type: UInt8(RTN_UNICAST), isRemoved: true),
            .address(index: 2, family: UInt8(AF_INET6), isRemoved: true),
        ]) == [.routeAdded, .routeRemoved, .addressRemoved])
    }

    /// Lost notifications mean anything may have changed, and link knowledge is dropped.
    @Test("an overrun reports everything and forgets the links")
    func overrun() {
        var collector = NetworkChangeCollector()
        _ = collector.collect([Self.link(5, up: true, running: true)])
        let change = collector.collect([.overrun])
        #expect(change == .everything)
        #expect(change.hasAppeared && change.hasDisappeared)
        #expect(collector.collect([Self.link(5, up: true, running: true)]) == .linkUp)
        #expect(NetworkChange([.linkUp, .routeRemoved]).description == "link up, route removed")
        #expect(NetworkChange().description == "no change")
    }

    /// The table of NetworkAvailability's doc comment, row by row.
    @Test("availability: transitions and what the session does")
    func availability() {
        var network = NetworkAvailability(isAvailable: false)
        #expect(network.networkChanged(.linkUp, routeAvailable: false) == .none)
        #expect(!network.isAvailable)
        #expect(network.networkChanged(.routeAdded, routeAvailable: true) == .dialNow)
        #expect(network.isAvailable)
        #expect(network.networkChanged(.addressAdded, routeAvailable: true) == .dialNow)
        #expect(network.networkChanged(.addressRemoved, routeAvailable: true) == .verifyConnection)
        #expect(network.networkChanged([], routeAvailable: true) == .none)
        #expect(network.networkChanged([.linkDown, .routeRemoved], routeAvailable: false) == .holdDialing)
        #expect(!network.isAvailable)
        #expect(network.routeChecked(available: false) == .none)
        #expect(network.routeChecked(available: true) == .dialNow)
        #expect(network.routeChecked(available: true) == .none)
        #expect(network.routeChecked(available: false) == .holdDialing)
    }
}
