// SPDX-License-Identifier: Apache-2.0

import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Reads the `nlmsghdr` messages of one netlink datagram. Pure: bytes in, events out.
///
/// Netlink is in host byte order; every message and attribute starts on a 4-byte boundary.
/// A truncated or malformed message ends the parse (the kernel never sends one; anything else
/// is not trusted further), and messages of other types are skipped.
enum NetlinkMessageParser {
    static let headerSize = MemoryLayout<nlmsghdr>.size          // 16
    static let linkInfoSize = MemoryLayout<ifinfomsg>.size       // 16
    static let addressInfoSize = MemoryLayout<ifaddrmsg>.size    // 8
    static let routeInfoSize = MemoryLayout<rtmsg>.size          // 12
    static let attributeHeaderSize = MemoryLayout<rtattr>.size   // 4

    static func events(in bytes: [UInt8]) -> [NetlinkEvent] {
        bytes.withUnsafeBytes { events(in: $0) }
    }

    static func events(in bytes: UnsafeRawBufferPointer) -> [NetlinkEvent] {
        var events: [NetlinkEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard length >= headerSize, offset + length <= bytes.count else { break }
            let type = Int32(bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self))
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + headerSize)..<(offset + length)])
            if let event = event(type: type, payload: payload) { events.append(event) }
            offset += aligned(length)
        }
        return events
    }

    static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }

    private static func event(type: Int32, payload: UnsafeRawBufferPointer) -> NetlinkEvent? {
        switch type {
        case NLMSG_OVERRUN:
            return .overrun
        case Int32(RTM_NEWLINK), Int32(RTM_DELLINK):
            guard payload.count >= linkInfoSize else { return nil }
            let flags = payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            return .link(
                index: payload.loadUnaligned(fromByteOffset: 4, as: Int32.self),
                isUp: flags & UInt32(IFF_UP) != 0,
                isRunning: flags & UInt32(IFF_RUNNING) != 0,
                isLoopback: flags & UInt32(IFF_LOOPBACK) != 0,
                isRemoved: type == Int32(RTM_DELLINK)
            )
        case Int32(RTM_NEWADDR), Int32(RTM_DELADDR):
            guard payload.count >= addressInfoSize else { return nil }
            return .address(
                index: Int32(bitPattern: payload.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                family: payload[0],
                isRemoved: type == Int32(RTM_DELADDR)
            )
        case Int32(RTM_NEWROUTE), Int32(RTM_DELROUTE):
            guard payload.count >= routeInfoSize else { return nil }
            let attributes = UnsafeRawBufferPointer(rebasing: payload[routeInfoSize...])
            return .route(
                family: payload[0],
                destinationPrefixLength: payload[1],
                // Tables above 255 are only in the RTA_TABLE attribute; rtm_table then says 252.
                table: tableAttribute(in: attributes) ?? UInt32(payload[4]),
                type: payload[7],
                isRemoved: type == Int32(RTM_DELROUTE)
            )
        default:
            return nil
        }
    }

    private static func tableAttribute(in attributes: UnsafeRawBufferPointer) -> UInt32? {
        var offset = 0
        while offset + attributeHeaderSize <= attributes.count {
            let length = Int(attributes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let type = attributes.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)
            guard length >= attributeHeaderSize, offset + length <= attributes.count else { return nil }
            if Int32(type) == Int32(RTA_TABLE.rawValue), length >= attributeHeaderSize + 4 {
                return attributes.loadUnaligned(fromByteOffset: offset + attributeHeaderSize, as: UInt32.self)
            }
            offset += aligned(length)
        }
        return nil
    }
}
