// SPDX-License-Identifier: Apache-2.0

import CLinux
import Glibc
import Testing

@testable import IntrapushDaemonKit

/// Builds netlink datagrams from the kernel's own C structs, so that sizes and offsets are real.
enum NetlinkBytes {
    static func message<Body>(_ type: Int32, _ body: Body, attributes: [UInt8] = []) -> [UInt8] {
        let payload = withUnsafeBytes(of: body) { Array($0) } + attributes
        var header = nlmsghdr()
        header.nlmsg_len = UInt32(MemoryLayout<nlmsghdr>.size + payload.count)
        header.nlmsg_type = UInt16(type)
        var bytes = withUnsafeBytes(of: header) { Array($0) } + payload
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func link(_ type: Int32, index: Int32, flags: Int32) -> [UInt8] {
        var info = ifinfomsg()
        info.ifi_family = UInt8(AF_UNSPEC)
        info.ifi_index = index
        info.ifi_flags = UInt32(flags)
        return message(type, info)
    }

    static func address(_ type: Int32, index: UInt32, family: Int32) -> [UInt8] {
        var info = ifaddrmsg()
        info.ifa_family = UInt8(family)
        info.ifa_prefixlen = 24
        info.ifa_index = index
        // An IFA_LABEL "va\0" (7 bytes with its header) forces padding before the next message.
        return message(type, info, attributes: attribute(type: 3, value: Array("va\0".utf8)))
    }

    static func route(_ type: Int32, family: Int32, prefix: UInt8, table: UInt8, kind: Int, tableAttribute: UInt32? = nil) -> [UInt8] {
        var info = rtmsg()
        info.rtm_family = UInt8(family)
        info.rtm_dst_len = prefix
        info.rtm_table = table
        info.rtm_type = UInt8(kind)
        var attributes = attribute(type: UInt16(RTA_PRIORITY.rawValue), value: withUnsafeBytes(of: UInt32(100)) { Array($0) })
        if let tableAttribute {
            attributes += attribute(type: UInt16(RTA_TABLE.rawValue), value: withUnsafeBytes(of: tableAttribute) { Array($0) })
        }
        return message(type, info, attributes: attributes)
    }

    static func attribute(type: UInt16, value: [UInt8]) -> [UInt8] {
        var header = rtattr()
        header.rta_len = UInt16(MemoryLayout<rtattr>.size + value.count)
        header.rta_type = type
        var bytes = withUnsafeBytes(of: header) { Array($0) } + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }
}

@Suite("Netlink message parsing")
struct NetlinkMessageParserTests {
    typealias Bytes = NetlinkBytes
    let up = Int32(IFF_UP) | Int32(IFF_RUNNING) | Int32(IFF_BROADCAST)

    /// The C structs have the sizes the parser assumes.
    @Test("struct sizes match the kernel ABI")
    func sizes() {
        #expect(NetlinkMessageParser.headerSize == 16)
        #expect(NetlinkMessageParser.linkInfoSize == 16)
        #expect(NetlinkMessageParser.addressInfoSize == 8)
        #expect(NetlinkMessageParser.routeInfoSize == 12)
    }

    /// One datagram carries several messages, each aligned to 4 bytes.
    @Test("a datagram with link, address and route messages")
    func severalMessages() {
        var datagram = Bytes.link(Int32(RTM_NEWLINK), index: 3, flags: up)
        datagram += Bytes.address(Int32(RTM_NEWADDR), index: 3, family: AF_INET)
        datagram += Bytes.route(Int32(RTM_NEWROUTE), family: AF_INET, prefix: 0, table: 254, kind: Int(RTN_UNICAST))
        datagram += Bytes.link(Int32(RTM_DELLINK), index: 4, flags: Int32(IFF_LOOPBACK))
        datagram += Bytes.address(Int32(RTM_DELADDR), index: 4, family: AF_INET6)
        datagram += Bytes.route(
            Int32(RTM_DELROUTE), family: AF_INET6, prefix: 64, table: 252, kind: Int(RTN_UNICAST), tableAttribute: 1000)
        let unicast = UInt8(RTN_UNICAST)
        let expected: [NetlinkEvent] = [
            .link(index: 3, isUp: true, isRunning: true, isLoopback: false, isRemoved: false),
            .address(index: 3, family: UInt8(AF_INET), isRemoved: false),
            .route(family: UInt8(AF_INET), destinationPrefixLength: 0, table: 254, type: unicast, isRemoved: false),
            .link(index: 4, isUp: false, isRunning: false, isLoopback: true, isRemoved: true),
            .address(index: 4, family: UInt8(AF_INET6), isRemoved: true),
            .route(family: UInt8(AF_INET6), destinationPrefixLength: 64, table: 1000, type: unicast, isRemoved: true),
        ]
        #expect(NetlinkMessageParser.events(in: datagram) == expected)
    }

    /// Control messages: an overrun is reported, DONE, NOOP and unknown types are skipped.
    @Test("overrun is an event; other control messages are skipped")
    func controlMessages() {
        let datagram = Bytes.message(NLMSG_NOOP, UInt32(0)) + Bytes.message(NLMSG_OVERRUN, UInt32(0))
            + Bytes.message(Int32(RTM_NEWNEIGH), UInt64(0)) + Bytes.message(NLMSG_DONE, UInt32(0))
        #expect(NetlinkMessageParser.events(in: datagram) == [.overrun])
    }

    /// A message cut short or with a length that lies ends the parse; what came before stays.
    @Test("truncated and malformed messages end the parse")
    func malformed() {
        let good = Bytes.link(Int32(RTM_NEWLINK), index: 1, flags: up)
        let link = NetlinkEvent.link(index: 1, isUp: true, isRunning: true, isLoopback: false, isRemoved: false)
        #expect(NetlinkMessageParser.events(in: good + Array(good.prefix(20))) == [link])
        var tooShort = good
        tooShort[0] = 8  // nlmsg_len below the header's own size
        #expect(NetlinkMessageParser.events(in: good + tooShort + good) == [link])
        // A link message whose body is shorter than ifinfomsg is skipped, the next one read.
        let shortBody = Bytes.message(Int32(RTM_NEWLINK), UInt32(0))
        #expect(NetlinkMessageParser.events(in: shortBody + good) == [link])
        #expect(NetlinkMessageParser.events(in: []) == [])
    }
}
