// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// The kernel's share in noticing a dead server, derived from `dead_peer_timeout` (D), for the
/// cases the heartbeat cannot cover: a heartbeat that cannot be sent (the send buffer is full of
/// data the peer never acknowledges) and a connection the application has stopped watching.
///
/// - `TCP_USER_TIMEOUT` = D: data written and unacknowledged for D fails the connection.
/// - Keepalive probes after D/3 of silence, then every D/9, three of them: an idle dead peer is
///   found within about 2D/3 (the kernel's default first probe is after two hours).
struct TCPLiveness: Equatable, Sendable {
    var keepaliveIdleSeconds: Int32
    var keepaliveIntervalSeconds: Int32
    var keepaliveProbes: Int32
    var userTimeoutMilliseconds: UInt32

    init(deadPeerTimeout: Duration) {
        let seconds = Double(deadPeerTimeout.components.seconds) + Double(deadPeerTimeout.components.attoseconds) / 1e18
        keepaliveIdleSeconds = Int32(clamping: max(1, Int((seconds / 3).rounded(.up))))
        keepaliveIntervalSeconds = Int32(clamping: max(1, Int((seconds / 9).rounded(.up))))
        keepaliveProbes = 3
        userTimeoutMilliseconds = UInt32(clamping: max(1, Int((seconds * 1000).rounded(.up))))
    }
}

extension ClientBootstrap {
    /// Keepalive and `TCP_USER_TIMEOUT` as `liveness` says.
    func tcpLiveness(_ liveness: TCPLiveness) -> ClientBootstrap {
        func tcp(_ name: Int32) -> ChannelOptions.Types.SocketOption {
            ChannelOptions.Types.SocketOption(level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(name))
        }
        return self
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelOption(tcp(TCP_KEEPIDLE), value: SocketOptionValue(liveness.keepaliveIdleSeconds))
            .channelOption(tcp(TCP_KEEPINTVL), value: SocketOptionValue(liveness.keepaliveIntervalSeconds))
            .channelOption(tcp(TCP_KEEPCNT), value: SocketOptionValue(liveness.keepaliveProbes))
            .channelOption(tcp(TCP_USER_TIMEOUT), value: SocketOptionValue(clamping: liveness.userTimeoutMilliseconds))
    }
}
