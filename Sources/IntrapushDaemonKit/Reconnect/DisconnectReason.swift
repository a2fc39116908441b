// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Why a connection attempt failed or an open connection ended.
package enum DisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// TCP connect refused, DNS failure, TLS failure and other errors before the upgrade.
    case unreachable(String)
    /// Connecting, the TLS handshake or the upgrade took longer than `connect_timeout`.
    case timedOut
    /// The upgrade was answered with an HTTP status other than 101.
    case handshakeRejected(status: Int)
    /// The server asked to come back later: `Retry-After` on a 503 or 429, or `retry-after=N`
    /// in a 1012/1013 close; `origin` says which ("HTTP 503", "close 1013").
    case serverAskedToWait(Duration, origin: String)
    /// The HTTP proxy could not be reached, or refused the tunnel (said in words).
    case proxy(String)
    /// The server's certificate chain is trusted, but does not prove the configured name (or
    /// matches none of `tls_pins`): said in words.
    case serverIdentityRefused(String)
    /// The server wants a client certificate and got none (`sent` false), or refused ours.
    case clientCertificateRefused(sent: Bool)
    /// The upgrade succeeded but the server selected another subprotocol than `subprotocol` asked for.
    case subprotocolMismatch(requested: String?, selected: String?)
    /// The server sent a close frame (its code, when it gave one) or closed the TCP connection.
    case closedByServer(code: Int?)
    /// Nothing arrived for `dead_peer_timeout`.
    case deadPeer
    /// A frame exceeded `max_message_size`; we closed with 1009.
    case messageTooLarge
    /// A push could not be committed; we dropped the connection so the server delivers it again.
    case storeFailed(String)
    /// A reload changed the connection settings.
    case reconfigured
    /// SIGTERM/SIGINT: we closed with 1000.
    case shuttingDown
    /// The primary server is up again: this connection to a fallback is closed with 1000.
    case returnedToPrimary
    /// Anything else the channel reported.
    case error(String)

    /// The close code of a server that took a newer connection of this host's identity for this
    /// one (protocol §10, S-HOST-5): two machines with one identity close each other in turn.
    package static let replacedByAnotherConnectionOfThisHost = 4409

    /// How long the server asked us to wait, if it did.
    package var retryAfter: Duration? {
        if case .serverAskedToWait(let wait, _) = self { return wait }
        return nil
    }

    /// HTTP 401 or 403: the server does not accept our token.
    package var isTokenRejection: Bool {
        if case .handshakeRejected(let status) = self { return status == 401 || status == 403 }
        return false
    }

    package var description: String {
        switch self {
        case .unreachable(let detail): return detail
        case .timedOut: return "connection timed out"
        case .handshakeRejected(let status) where status == 401 || status == 403:
            return "token rejected by the server (HTTP \(status))"
        case .handshakeRejected(let status): return "upgrade refused with HTTP \(status)"
        case .proxy(let detail): return detail
        case .serverIdentityRefused(let detail): return detail
        case .serverAskedToWait(let wait, let origin): return "server asked to wait \(wait.roundedText) (\(origin))"
        case .clientCertificateRefused(sent: false):
            return "the server requires a client certificate; set tls_cert_file and tls_key_file"
        case .clientCertificateRefused(sent: true):
            return "the server refused the client certificate in tls_cert_file; check that it is signed by a CA the server trusts, current, and meant for this server"
        case .subprotocolMismatch(let requested?, nil):
            return "the server did not select subprotocol \(requested); check subprotocol in the configuration"
        case .subprotocolMismatch(let requested?, let selected?):
            return "the server selected subprotocol \(selected) instead of \(requested); check subprotocol in the configuration"
        case .subprotocolMismatch(nil, let selected):
            return "the server selected subprotocol \(selected ?? "?"), which was not asked for; set subprotocol if the server needs it"
        case .closedByServer(Self.replacedByAnotherConnectionOfThisHost?):
            return "closed by the server (code \(Self.replacedByAnotherConnectionOfThisHost)): another connection with this host's "
                + "identity opened; if two machines share it (an image cloned with its machine id), give each its own "
                + "(systemd-machine-id-setup, or host_id)"
        case .closedByServer(let code?): return "closed by the server (code \(code))"
        case .closedByServer(nil): return "connection closed by the server"
        case .deadPeer: return "no answer from the server (dead peer)"
        case .messageTooLarge: return "message larger than max_message_size (closed with 1009)"
        case .storeFailed(let detail): return "could not store a push: \(detail)"
        case .reconfigured: return "configuration reloaded"
        case .shuttingDown: return "shutting down"
        case .returnedToPrimary: return "the primary server is back"
        case .error(let detail): return detail
        }
    }
}
