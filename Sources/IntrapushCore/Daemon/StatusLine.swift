/// The one-line `STATUS=` text systemd shows in `systemctl status`.
public enum StatusLine {
    public static func connecting(to configuration: Configuration) -> String {
        "connecting to \(configuration.host) (org \(configuration.org))"
    }

    public static func connected(to configuration: Configuration, received: Int64) -> String {
        "connected to \(configuration.host) (org \(configuration.org)) · \(received) received"
    }

    /// No route to the server: the daemon does not dial until one appears (issue 6).
    public static func waitingForNetwork(to configuration: Configuration) -> String {
        "waiting for network: no route to \(configuration.host)"
    }

    public static func reconnecting(in delay: Duration, attempt: Int, reason: DisconnectReason) -> String {
        if reason.isTokenRejection {
            return "\(reason); retrying in \(format(delay)) (attempt \(attempt))"
        }
        return "reconnecting in \(format(delay)) (attempt \(attempt)): \(reason)"
    }

    /// Whole seconds for waits of a second or more, milliseconds below.
    public static func format(_ duration: Duration) -> String {
        let seconds = duration.secondsValue
        if seconds >= 1 { return "\(Int(seconds.rounded()))s" }
        return "\(Int((seconds * 1000).rounded()))ms"
    }
}
