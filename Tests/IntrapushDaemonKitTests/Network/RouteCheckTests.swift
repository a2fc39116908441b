// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("RouteCheck")
struct RouteCheckTests {
    /// Loopback servers never wait for the network.
    @Test("loopback addresses and localhost always have a route")
    func loopback() {
        for host in ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost", "push.localhost"] {
            #expect(RouteCheck.hasRoute(toHost: host), "\(host)")
        }
        #expect(!RouteCheck.isLoopbackName("127.example.com"))
        #expect(RouteCheck.connectUDP(to: "127.0.0.1", port: 9) == true)
        #expect(RouteCheck.connectUDP(to: "push.corp", port: 9) == nil)
    }

    /// Host names fall back to the routing tables: a route through a real interface counts,
    /// loopback, rejecting, link-local and multicast routes do not.
    @Test("routing tables: which routes make the network available")
    func routingTables() {
        let ipv4Header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        let ipv4 = ipv4Header + "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
        let ipv6Loopback = """
            00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo
            00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo

            """
        let ipv6LinkLocal = """
            fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
            ff000000000000000000000000000000 08 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000003 00000000 00000001     eth0

            """
        let ipv6Global = "fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0\n"
        #expect(RouteCheck.hasUsableRoute(ipv4Table: ipv4, ipv6Table: ipv6Loopback))
        #expect(!RouteCheck.hasUsableRoute(ipv4Table: ipv4Header, ipv6Table: ipv6Loopback + ipv6LinkLocal))
        #expect(!RouteCheck.hasUsableRoute(ipv4Table: ipv4Header + "lo\t0000007F\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n", ipv6Table: ""))
        #expect(!RouteCheck.hasUsableRoute(ipv4Table: ipv4Header + "eth0\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0\t0\t0\n", ipv6Table: ""))
        #expect(RouteCheck.hasUsableRoute(ipv4Table: ipv4Header, ipv6Table: ipv6LinkLocal + ipv6Global))
        #expect(!RouteCheck.hasUsableRoute(ipv4Table: "", ipv6Table: ""))
    }

    /// In a fresh namespace nothing is reachable; a veth with an address gives its subnet, a
    /// default route everything else, and setting the link down takes its routes away.
    @Test("routes appear and go in a scratch network namespace",
          .enabled(if: NetworkNamespace.isAvailable, "needs root and `ip netns` to create a network namespace"))
    func inNamespace() throws {
        let namespace = try NetworkNamespace()
        func check(_ host: String) throws -> Bool { try namespace.entered { RouteCheck.hasRoute(toHost: host) } }
        #expect(try check("192.0.2.1") == false)
        #expect(try check("2001:db8::1") == false)
        #expect(try check("push.corp.example") == false)
        #expect(try check("127.0.0.1"))
        try namespace.ip("link", "add", "va", "type", "veth", "peer", "name", "vb")
        try namespace.ip("addr", "add", "10.9.0.1/24", "dev", "va")
        try namespace.ip("link", "set", "vb", "up")
        try namespace.ip("link", "set", "va", "up")
        #expect(try check("10.9.0.2"))
        #expect(try check("192.0.2.1") == false)
        #expect(try check("push.corp.example"))
        try namespace.ip("route", "add", "default", "via", "10.9.0.2")
        #expect(try check("192.0.2.1"))
        try namespace.ip("link", "set", "va", "down")
        #expect(try check("192.0.2.1") == false)
        #expect(try check("10.9.0.2") == false)
        #expect(try check("push.corp.example") == false)
    }
}
