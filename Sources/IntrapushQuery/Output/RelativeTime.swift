// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
/// How long ago (or how far ahead) an instant is, in the largest whole unit, for table cells.
package enum RelativeTime {
    /// "just now" (under 1 s either way), "45 s ago", "3 min ago", "2 h ago", "5 d ago", "3 w ago";
    /// in the future "in 8 s", "in 3 min". Units are whole and truncated, never rounded up, so that
    /// "1 min ago" is never said of 59.5 s.
    package static func describe(milliseconds: Int64, now: Int64) -> String {
        let (difference, overflow) = now.subtractingReportingOverflow(milliseconds)
        let elapsed = overflow ? (now > milliseconds ? Int64.max : Int64.min) : difference
        let magnitude = elapsed.magnitude
        guard magnitude >= 1000 else { return "just now" }
        let seconds = magnitude / 1000
        let (count, unit): (UInt64, String) =
            switch seconds {
            case ..<60: (seconds, " s")
            case ..<3600: (seconds / 60, " min")
            case ..<86_400: (seconds / 3600, " h")
            case ..<604_800: (seconds / 86_400, " d")
            default: (seconds / 604_800, " w")
            }
        return elapsed > 0 ? String(count) + unit + " ago" : "in " + String(count) + unit
    }

    /// The local time and how long ago: "2026-11-22 09:02:03 (3 min ago)".
    package static func withLocalTime(milliseconds: Int64, now: Int64) -> String {
        "\(Timestamp.local(milliseconds: milliseconds)) (\(describe(milliseconds: milliseconds, now: now)))"
    }
}
