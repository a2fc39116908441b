// SPDX-License-Identifier: Apache-2.0

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
}
