// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

/// What a stored notification looks like on the desktop: pure, so that every rule of it (summary,
/// escaping, urgency, actions, ceilings) is tested and fuzzed without a bus.
package enum NotificationContent {
    /// Ceilings on what one notification carries to the server: a push may be as large as
    /// `max_message_size`, and no bubble shows more than this anyway.
    static let summaryLimit = 256
    static let bodyLimit = 4096
    static let linkLimit = 2048

    /// The notification for a stored push's fields (a payload that is not a JSON object with a
    /// title or body is shown as it came).
    ///
    /// - Parameter markup: the server lists `body-markup`, so the body's `&`, `<`, `>` are escaped.
    package static func notification(
        title: String?, body: String?, payload: String, priority: NotificationPriority?, link: String?, markup: Bool
    ) -> DesktopNotification {
        var summary = title.map(trimmed) ?? ""
        var body = body ?? (title == nil ? payload : "")
        if summary.isEmpty {
            (summary, body) = firstLine(of: body)
        }
        if summary.isEmpty { summary = "New notification" }
        var actions = [DesktopNotification.markReadAction]
        if link.flatMap(openableLink) != nil { actions.insert(DesktopNotification.openAction, at: 0) }
        let urgency = urgency(of: priority)
        return DesktopNotification(
            summary: cut(clean(summary), to: summaryLimit),
            body: prepared(body, markup: markup),
            actions: actions,
            urgency: urgency,
            expireTimeout: urgency == .critical ? 0 : -1
        )
    }

    /// The one notification that stands for `count` more unread ones than are shown.
    package static func summary(moreUnread count: Int64, markup: Bool) -> DesktopNotification {
        let noun = count == 1 ? "notification" : "notifications"
        return DesktopNotification(
            summary: "\(count) more unread",
            body: prepared("\(count) more unread \(noun) — intrapush list --unread", markup: markup),
            actions: [],
            urgency: .normal,
            expireTimeout: -1
        )
    }

    /// ntfy's levels: 1–2 low, 3 (or none) normal, 4–5 critical.
    package static func urgency(of priority: NotificationPriority?) -> DesktopNotification.Urgency {
        switch priority {
        case .minimum, .low: .low
        case .normal, nil: .normal
        case .high, .urgent: .critical
        }
    }

    /// The link, when it is one a click may open: http, https or mailto, one line, not too long.
    /// Anything else (`file:`, `javascript:`, a `.desktop` path, a command line) is never handed
    /// to `xdg-open`, which would run or open it.
    package static func openableLink(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= linkLimit,
            !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        let lowered = text.lowercased()
        for scheme in ["https://", "http://", "mailto:"] where lowered.hasPrefix(scheme) && lowered.count > scheme.count {
            return text
        }
        return nil
    }

    /// `&`, `<`, `>` as entities: the spec's markup is a small XML subset, so a body that reads
    /// `<b>` would otherwise turn bold, and a lone `&` would make some servers drop the body.
    /// Scalar by scalar: a `<` followed by a combining mark is one Swift character, but still a
    /// `<` to the server's parser.
    package static func escapedMarkup(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func prepared(_ body: String, markup: Bool) -> String {
        let body = cut(clean(body), to: bodyLimit)
        return markup ? escapedMarkup(body) : body
    }

    /// The first non-blank line, and what follows it.
    private static func firstLine(of text: String) -> (line: String, rest: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first, trimmed(String(first)).isEmpty { lines = lines.dropFirst() }
        guard let first = lines.first else { return ("", "") }
        return (trimmed(String(first)), trimmed(lines.dropFirst().joined(separator: "\n")))
    }

    /// NUL ends a C string, and sd-bus passes strings as C strings: it would cut the text.
    private static func clean(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return String(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : Character($0) })
    }

    /// At most `limit` bytes of UTF-8, cut between characters, with `…` when cut.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit - 3 else { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
