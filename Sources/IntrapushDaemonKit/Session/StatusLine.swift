import IntrapushConfiguration
import IntrapushSupport
/// The one-line `STATUS=` text systemd shows in `systemctl status`.
package enum StatusLine {
    package static func connecting(to configuration: Configuration, server: Int = 0) -> String {
        "connecting to \(host(server, of: configuration)) (org \(configuration.org))"
    }

    /// On a fallback it says so, and since when the primary has been unreachable.
    package static func connected(
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
    package static func waitingForNetwork(to configuration: Configuration) -> String {
        "waiting for network: no route to \(configuration.host)"
    }

    package static func reconnecting(in delay: Duration, attempt: Int, reason: DisconnectReason) -> String {
        if reason.isTokenRejection {
            return "\(reason); retrying in \(format(delay)) (attempt \(attempt))"
        }
        return "reconnecting in \(format(delay)) (attempt \(attempt)): \(reason)"
    }

    /// Whole seconds for waits of a second or more, milliseconds below.
    /// Integer arithmetic on the components: any `Duration` prints, none traps.
    package static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 1 else {
            return "\(max(0, (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000))ms"
        }
        return "\(seconds &+ (attoseconds >= 500_000_000_000_000_000 ? 1 : 0))s"
    }
}
