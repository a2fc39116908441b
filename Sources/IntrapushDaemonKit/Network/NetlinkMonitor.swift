// SPDX-License-Identifier: Apache-2.0

import CLinux
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// Watches the kernel's routing messages (rtnetlink) and reports each burst of network changes.
///
/// One `AF_NETLINK`/`NETLINK_ROUTE` socket joins the link, IPv4/IPv6 address and IPv4/IPv6
/// route groups. A thread of its own waits in `poll` on it and on a wake pipe (for `stop`),
/// drains every datagram pending, and calls `onChange` once per burst with what it amounts to
/// (`NetworkChangeCollector`); nothing is reported for bursts that change nothing that matters.
/// Only messages from the kernel are read: another process can send to our socket's port id,
/// so datagrams whose sender is not port 0 are dropped. When the kernel drops notifications
/// because we read too slowly (`ENOBUFS`), everything is reported as changed.
///
/// The systemd unit must allow the family: `RestrictAddressFamilies=` has to list `AF_NETLINK`.
final class NetlinkMonitor: Sendable {
    /// The multicast groups joined: links, addresses and routes, IPv4 and IPv6.
    static let groups = UInt32(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE)

    private let socketDescriptor: Int32
    /// Wakes the thread for `stop`.
    private let wakeup: WakeupPipe
    private let onChange: @Sendable (NetworkChange) -> Void
    private let thread = NIOLockedValueBox<ThreadState>(.notStarted)

    private enum ThreadState {
        case notStarted
        case running(pthread_t)
        case stopped
    }

    /// Opens and binds the socket in the calling thread's network namespace; reading starts
    /// with `start()`. Changes from then on are queued by the kernel.
    ///
    /// - Parameter onChange: called on the monitor's thread, once per burst of changes; keep it short.
    /// - Throws: `NetlinkError` when the socket cannot be made (no `AF_NETLINK` under a
    ///   seccomp filter, say): the daemon can then only fall back to its backoff.
    init(onChange: @escaping @Sendable (NetworkChange) -> Void) throws(NetlinkError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor = socket(AF_NETLINK, type, NETLINK_ROUTE)
        guard descriptor >= 0 else { throw NetlinkError(operation: "socket", code: errno) }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = Self.groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw NetlinkError(operation: "bind", code: code)
        }
        // Room for a large burst (many interfaces going down at once) before ENOBUFS.
        var receiveBuffer: Int32 = 1 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        do {
            wakeup = try WakeupPipe()
        } catch {
            close(descriptor)
            throw NetlinkError(operation: "pipe2", code: error.code)
        }
        socketDescriptor = descriptor
        self.onChange = onChange
    }

    deinit {
        stop()
        close(socketDescriptor)
    }

    /// Starts the reading thread; does nothing when it already runs or has stopped.
    func start() {
        thread.withLockedValue { state in
            guard case .notStarted = state else { return }
            let context = Unmanaged.passRetained(self).toOpaque()
            var handle = pthread_t()
            guard pthread_create(&handle, nil, { context in
                let monitor = Unmanaged<NetlinkMonitor>.fromOpaque(context!).takeRetainedValue()
                monitor.readUntilStopped()
                return nil
            }, context) == 0 else {
                Unmanaged<NetlinkMonitor>.fromOpaque(context).release()
                state = .stopped
                return
            }
            state = .running(handle)
        }
    }

    /// Wakes the thread, waits for it to end; no `onChange` call follows. Idempotent.
    func stop() {
        let handle: pthread_t? = thread.withLockedValue { state in
            defer { state = .stopped }
            guard case .running(let handle) = state else { return nil }
            return handle
        }
        guard let handle else { return }
        wakeup.wake()
        // The thread holds a reference to self until it returns: never join from itself.
        if pthread_equal(handle, pthread_self()) == 0 { pthread_join(handle, nil) }
    }

    private func readUntilStopped() {
        var collector = NetworkChangeCollector()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors = [
            pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || descriptors[0].revents != 0 { return }
            guard descriptors[1].revents != 0 else { continue }
            let change = collector.collect(drain(into: &buffer))
            if !change.isEmpty { onChange(change) }
        }
    }

    /// Every event pending on the socket, from the kernel only.
    private func drain(into buffer: inout [UInt8]) -> [NetlinkEvent] {
        var events: [NetlinkEvent] = []
        while true {
            var sender = sockaddr_nl()
            var senderLength = socklen_t(MemoryLayout<sockaddr_nl>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(socketDescriptor, bytes.baseAddress, bytes.count, 0, $0, &senderLength)
                    }
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ENOBUFS { events.append(.overrun) }
                return events  // EAGAIN: drained
            }
            guard count > 0 else { return events }
            guard sender.nl_pid == 0 else { continue }
            events += buffer.withUnsafeBytes {
                NetlinkMessageParser.events(in: UnsafeRawBufferPointer(rebasing: $0[..<count]))
            }
        }
    }
}

/// The network monitor's socket could not be set up.
struct NetlinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed.
    let operation: String
    /// Its `errno`.
    let code: Int32

    var description: String {
        "cannot watch network changes (\(operation): \(String(cString: strerror(code)))); "
            + "reconnecting follows the backoff alone. Under systemd, allow AF_NETLINK in RestrictAddressFamilies="
    }
}
