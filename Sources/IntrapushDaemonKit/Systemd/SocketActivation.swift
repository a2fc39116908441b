// SPDX-License-Identifier: Apache-2.0

import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket systemd passes when `intrapush.socket` holds the local API's socket
/// (socket activation, `LISTEN_FDS`): systemd keeps it open across a restart of the daemon, so
/// a caller connecting meanwhile waits in its queue instead of finding nothing there.
enum SocketActivation {
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// The one listening Unix stream socket systemd passed, with its path; `nil` when systemd
    /// passed none (not socket-activated: the daemon binds its own). The variables are unset,
    /// so that no hook inherits them, and the descriptor is close-on-exec.
    static func localAPISocket() throws(Unusable) -> (descriptor: Int32, path: String)? {
        let count = sd_listen_fds(1)
        guard count != 0 else { return nil }
        guard count > 0 else { throw Unusable(description: "cannot read the sockets systemd passed: \(String(cString: strerror(-count)))") }
        guard count == 1 else {
            throw Unusable(description: "systemd passed \(count) sockets; the local API takes one (ListenStream= in intrapush.socket)")
        }
        let descriptor = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(descriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            throw Unusable(description: "the socket systemd passed is not a listening Unix stream socket (ListenStream= in intrapush.socket)")
        }
        return (descriptor, path(of: descriptor) ?? "the socket systemd passed")
    }

    private static func path(of descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix(while: { $0 != 0 })
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }
}
