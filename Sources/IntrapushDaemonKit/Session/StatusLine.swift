// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushSupport
/// The one-line `STATUS=` text systemd shows in `systemctl status`.
enum StatusLine {
    static func connecting(to configuration: Configuration, server: Int = 0) -> String {
        "connecting to \(host(server, of: configuration)) (org \(configuration.org))"
    }

    /// On a fallback it says so, and since when the primary has been unreachable.
    static func connected(
        to configuration: Configuration, server: Int = 0, received: Int64, primaryUnreachableSince: Int64? = nil
    ) -> String {
        var line = "connected to \(host(server, of: configuration)) (org \(configuration.org))"
        if server > 0 {
            line += ", a fallback: the primary \(configuration.host) is unreachable"
            if let since = primaryUnreachableSince { line += " since \(Timestamp.local(milliseconds: since))" }
        }
        return line + " · \(received) received"
    }

    private static func host(_ index: Int, of configuration: Configuration) -> String {
        index < configuration.hosts.count ? configuration.hosts[index] : configuration.host
    }

    /// No route to the server: the daemon does not dial until one appears.
    static func waitingForNetwork(to configuration: Configuration) -> String {
        "waiting for network: no route to \(configuration.host)"
    }

    static func reconnecting(in delay: Duration, attempt: Int, reason: DisconnectReason) -> String {
        if reason.isTokenRejection {
            return "\(reason); retrying in \(delay.roundedText) (attempt \(attempt))"
        }
        return "reconnecting in \(delay.roundedText) (attempt \(attempt)): \(reason)"
    }
}
