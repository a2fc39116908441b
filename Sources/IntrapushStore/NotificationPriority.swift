// SPDX-License-Identifier: Apache-2.0

/// How urgent a push is, on ntfy's scale of 1 to 5: the `priority` column holds the level's number
/// (NULL: the push named none, which reads as `.normal`).
///
/// Servers write it as a number or a word; `init?(member:)` takes either, and anything else is no
/// priority at all rather than a guess.
package enum NotificationPriority: Int, Sendable, Equatable, Comparable, CaseIterable {
    case minimum = 1
    case low = 2
    case normal = 3
    case high = 4
    case urgent = 5

    /// A member's value: a JSON number 1–5 (`4`, `4.0` is not one), or a word, any case:
    /// `min`, `low`, `default`/`normal`, `high`, `urgent`/`max`/`critical`; a string holding a
    /// number 1–5 too, as ntfy's headers carry it.
    package init?(member text: String) {
        if text.utf8.count == 1, let digit = text.utf8.first, digit >= UInt8(ascii: "1"), digit <= UInt8(ascii: "5") {
            self.init(rawValue: Int(digit - UInt8(ascii: "0")))
            return
        }
        // Longer text is no word of ours: not lowercased, so a huge member costs nothing.
        guard text.utf8.count <= 8 else { return nil }
        switch text.lowercased() {
        case "min", "minimum": self = .minimum
        case "low": self = .low
        case "default", "normal": self = .normal
        case "high": self = .high
        case "urgent", "max", "critical": self = .urgent
        default: return nil
        }
    }

    /// The word the CLI shows and accepts.
    package var name: String {
        switch self {
        case .minimum: "min"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .urgent: "urgent"
        }
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
