// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Does a usable route to the server exist right now? Asked before dialling and after each
/// network change, so that a daemon without network waits for it instead of failing attempts.
///
/// - An IP address: a UDP socket is `connect`ed to it, which only looks the route up in the
///   kernel (UDP sends nothing on connect); `ENETUNREACH`/`EHOSTUNREACH` mean no route, and an
///   address family the host lacks (IPv6 disabled) counts as none too.
/// - A loopback address or `localhost`: always reachable, no system call.
/// - A host name: resolving it is the dialer's job, and needs the network itself. The network
///   counts as there when any route goes through an interface other than `lo`, not counting
///   rejecting routes and IPv6 link-local and multicast ones (those exist on any interface that is
///   up, even with no network behind it). A host with only `lo` and no route waits.
///
/// Any other failure (a socket that cannot be made, an unreadable `/proc`) answers `true`: when
/// in doubt, dial, and let the dialer's error say what is wrong.
enum RouteCheck {
    /// - Parameters:
    ///   - host: the configured server host, a name or an IP address (IPv6 with or without brackets).
    ///   - port: the server's port; no packet is sent to it.
    static func hasRoute(toHost host: String, port: Int = 9) -> Bool {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if isLoopbackName(name) { return true }
        switch connectUDP(to: name, port: port) {
        case .some(let reachable): return reachable
        case .none: return hasNonLoopbackRoute()
        }
    }

    static func isLoopbackName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered == "::1"
            || lowered.hasPrefix("127.") && lowered.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// `nil` when `name` is not a numeric address; else whether the kernel has a route to it.
    static func connectUDP(to name: String, port: Int) -> Bool? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &result) == 0, let info = result else { return nil }
        defer { freeaddrinfo(result) }
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return errno != EAFNOSUPPORT }
        defer { close(descriptor) }
        guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 else { return true }
        switch errno {
        case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: return false
        default: return true
        }
    }

    /// Reads the calling thread's network namespace's routing tables (`thread-self`, so that a
    /// thread that entered another namespace sees that one's).
    static func hasNonLoopbackRoute() -> Bool {
        let ipv4 = readFile("/proc/thread-self/net/route") ?? readFile("/proc/net/route")
        let ipv6 = readFile("/proc/thread-self/net/ipv6_route") ?? readFile("/proc/net/ipv6_route")
        guard ipv4 != nil || ipv6 != nil else { return true }
        return hasUsableRoute(ipv4Table: ipv4 ?? "", ipv6Table: ipv6 ?? "")
    }

    static let routeUp: UInt32 = 0x0001      // RTF_UP
    static let routeReject: UInt32 = 0x0200  // RTF_REJECT: an unreachable route

    /// Pure: the texts of `/proc/net/route` and `/proc/net/ipv6_route`.
    static func hasUsableRoute(ipv4Table: String, ipv6Table: String) -> Bool {
        // Iface Destination Gateway Flags … (hex), after one header line.
        for line in ipv4Table.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count > 3, let flags = UInt32(fields[3], radix: 16) else { continue }
            if fields[0] != "lo", isUsable(flags) { return true }
        }
        // destination prefix source prefix next-hop metric refcount use flags iface, no header.
        for line in ipv6Table.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 10, let flags = UInt32(fields[8], radix: 16) else { continue }
            let destination = fields[0].lowercased()
            let linkLocalOrMulticast = destination.hasPrefix("fe8") || destination.hasPrefix("fe9")
                || destination.hasPrefix("fea") || destination.hasPrefix("feb") || destination.hasPrefix("ff")
            if fields[9] != "lo", !linkLocalOrMulticast, isUsable(flags) { return true }
        }
        return false
    }

    private static func isUsable(_ flags: UInt32) -> Bool {
        flags & routeUp != 0 && flags & routeReject == 0
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while let line = fgets(&buffer, Int32(buffer.count), file) {
            text += String(cString: line)
        }
        return text
    }
}
