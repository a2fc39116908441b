import IntrapushQuery
/// The environment a hook runs in: the daemon's own, without what is secret or meant for the
/// daemon alone, plus the notification's `INTRAPUSH_ID`, `INTRAPUSH_MESSAGE_ID`, `INTRAPUSH_TITLE`
/// and `INTRAPUSH_BODY` (empty when absent).
struct HookEnvironment: Sendable {
    /// `NAME=value` for each inherited variable that is passed on.
    let inherited: [String]

    /// Variables a hook never sees: the credentials directory and the token, and systemd's
    /// notification, watchdog and socket-activation variables, which name this daemon.
    static func isWithheld(_ name: String) -> Bool {
        switch name {
        case "CREDENTIALS_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "INTRAPUSH_TOKEN":
            return true
        case "INTRAPUSH_ID", "INTRAPUSH_MESSAGE_ID", "INTRAPUSH_TITLE", "INTRAPUSH_BODY":
            return true  // replaced per notification
        default:
            return name.hasPrefix("LISTEN_")
        }
    }

    init(inheriting environment: [String: String]) {
        inherited = environment
            .filter { !Self.isWithheld($0.key) && !$0.key.isEmpty && !$0.key.contains("=") }
            .sorted { $0.key < $1.key }
            .map { "\($0.key)=\(Self.passable($0.value))" }
    }

    /// The whole environment for one run.
    func entries(for record: NotificationRecord) -> [String] {
        inherited + [
            "INTRAPUSH_ID=\(record.id)",
            "INTRAPUSH_MESSAGE_ID=\(Self.passable(record.messageID ?? ""))",
            "INTRAPUSH_TITLE=\(Self.passable(record.title ?? ""))",
            "INTRAPUSH_BODY=\(Self.passable(record.body ?? ""))",
        ]
    }

    /// An environment string ends at its first NUL, so NULs become U+FFFD, the same mark the
    /// CLI shows for bytes that are not text.
    static func passable(_ value: String) -> String {
        value.unicodeScalars.contains("\0") ? value.replacing("\0", with: "\u{FFFD}") : value
    }
}
