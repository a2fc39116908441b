// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
/// The environment a hook runs in: an allow-list of the daemon's own (what a program needs to
/// run and reach the desktop, and the operator's `INTRAPUSH_HOOK_*`), plus the notification's
/// `INTRAPUSH_ID`, `INTRAPUSH_MESSAGE_ID`, `INTRAPUSH_TITLE` and `INTRAPUSH_BODY`.
///
/// An allow-list, not a deny-list: the daemon's environment may hold a proxy's password
/// (`https_proxy`), the token or a header's secret (`INTRAPUSH_*`), and a name nobody thought of
/// must not reach a script that may log it.
struct HookEnvironment: Sendable {
    /// `NAME=value` for each inherited variable that is passed on.
    let inherited: [String]

    /// The most bytes of a title, body or message id put in the environment. The kernel refuses
    /// a single string over 128 KiB (E2BIG), and the hook would not run; the whole record is
    /// on stdin.
    static let longestField = 8192

    /// Variables passed on by name.
    static let passedByName: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
        "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "STATE_DIRECTORY", "RUNTIME_DIRECTORY", "CACHE_DIRECTORY", "LOGS_DIRECTORY", "CONFIGURATION_DIRECTORY",
        "INVOCATION_ID",
    ]

    /// Whether a variable of the daemon's reaches the hook.
    static func isPassed(_ name: String) -> Bool {
        passedByName.contains(name) || name.hasPrefix("LC_") || name.hasPrefix("INTRAPUSH_HOOK_")
    }

    init(inheriting environment: [String: String]) {
        inherited = environment
            .filter { Self.isPassed($0.key) && !$0.key.contains("=") }
            .sorted { $0.key < $1.key }
            .map { "\($0.key)=\(Self.passable($0.value))" }
    }

    /// The whole environment for one run.
    func entries(for record: NotificationRecord) -> [String] {
        inherited + [
            "INTRAPUSH_ID=\(record.id)",
            "INTRAPUSH_MESSAGE_ID=\(Self.field(record.messageID))",
            "INTRAPUSH_TITLE=\(Self.field(record.title))",
            "INTRAPUSH_BODY=\(Self.field(record.body))",
        ]
    }

    /// A notification's field, cut to `longestField` bytes on a character boundary.
    static func field(_ value: String?) -> String {
        guard let value else { return "" }
        guard value.utf8.count > longestField else { return passable(value) }
        var cut = ""
        var bytes = 0
        for character in value {
            let size = character.utf8.count
            guard bytes + size <= longestField else { break }
            cut.append(character)
            bytes += size
        }
        return passable(cut)
    }

    /// An environment string ends at its first NUL, so NULs become U+FFFD, the same mark the
    /// CLI shows for bytes that are not text.
    static func passable(_ value: String) -> String {
        value.unicodeScalars.contains("\0") ? value.replacing("\0", with: "\u{FFFD}") : value
    }
}
