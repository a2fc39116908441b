// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// Resolves the server's name with getaddrinfo on a thread of the daemon's own.
///
/// NIO's default resolver runs getaddrinfo on libdispatch's global pool. Its first worker thread
/// arms libdispatch's pool monitor, a timer that then wakes the idle daemon every second for as
/// long as it runs. One parked thread costs nothing while idle.
final class HostResolver: Resolver, Sendable {
    /// Started at the first connection attempt; lives as long as the daemon.
    static let pool = WorkerThread(name: .resolver)

    private let ipv4: EventLoopPromise<[SocketAddress]>
    private let ipv6: EventLoopPromise<[SocketAddress]>
    private let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.ipv4 = eventLoop.makePromise()
        self.ipv6 = eventLoop.makePromise()
    }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        ipv4.futureResult
    }

    /// Asked second by Happy Eyeballs; one getaddrinfo answers both families.
    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        let (ipv4, ipv6) = (self.ipv4, self.ipv6)
        Self.pool.runIfActive(eventLoop: eventLoop) { try Self.resolve(host: host, port: port) }.whenComplete { result in
            switch result {
            case .success(let addresses):
                ipv4.succeed(addresses.filter { $0.protocol == .inet })
                ipv6.succeed(addresses.filter { $0.protocol == .inet6 })
            case .failure(let error):
                ipv4.fail(error)
                ipv6.fail(error)
            }
        }
        return ipv6.futureResult
    }

    func cancelQueries() {}

    static func resolve(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let first = list else {
            throw HostResolutionFailure(host: host, reason: String(cString: gai_strerror(code)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            guard let address = entry.pointee.ai_addr else { continue }
            switch entry.pointee.ai_family {
            case AF_INET:
                addresses.append(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
            case AF_INET6:
                addresses.append(address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
            default:
                continue
            }
        }
        return addresses
    }
}

/// getaddrinfo's answer, in its own words ("Name or service not known").
struct HostResolutionFailure: Error, CustomStringConvertible {
    var host: String
    var reason: String
    var description: String { "cannot resolve \(host): \(reason)" }
}
