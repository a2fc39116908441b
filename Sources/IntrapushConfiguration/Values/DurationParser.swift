// SPDX-License-Identifier: Apache-2.0

/// Reads the configuration's durations: a number of seconds (fractions allowed) or a number with a
/// unit, `ms`, `s`, `min` or `h` — `"250ms"`, `"10s"`, `"5min"`, `"1h"`, `"1.5"`, `"10"`.
///
/// Signs, exponents, `inf` and values beyond ten years are rejected (`nil`); zero parses, and it is
/// the validator's business to refuse it where a positive duration is needed. Digits past the
/// nanosecond are dropped.
package enum DurationParser {
    /// Ten years, in nanoseconds; keeps `Duration` arithmetic far away from overflow.
    static let maximumNanoseconds: Int64 = 10 * 365 * 24 * 3600 * 1_000_000_000
    /// The longest duration accepted anywhere: ten years.
    package static let longest: Duration = .nanoseconds(maximumNanoseconds)

    package static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingWhitespace()
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = trimmed.dropFirst(number.count).trimmingWhitespace()
        guard let unitNanoseconds = nanoseconds(per: unit) else { return nil }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, let wholeValue = Int64(whole)
        else { return nil }
        let (wholeNanoseconds, overflowed) = wholeValue.multipliedReportingOverflow(by: unitNanoseconds)
        guard !overflowed, wholeNanoseconds <= maximumNanoseconds else { return nil }
        var total = wholeNanoseconds
        if parts.count == 2 {
            // Integer arithmetic keeps "0.3" exactly 300 ms, which a Double would not.
            let fraction = parts[1].prefix(9)
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber), let digits = Int64(fraction) else {
                return nil
            }
            var scale: Int64 = 1
            for _ in 0..<fraction.count { scale *= 10 }
            total += digits * (unitNanoseconds / scale)
                + digits * (unitNanoseconds % scale) / scale
        }
        guard total <= maximumNanoseconds else { return nil }
        return .nanoseconds(total)
    }

    /// A TOML number of seconds; `nil` when negative, not finite or too large.
    static func duration(seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0, seconds * 1e9 <= Double(maximumNanoseconds) else {
            return nil
        }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// The text `parse` reads back to the same value: `"10s"`, `"250ms"`, `"0.0005s"`.
    package static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = attoseconds / 1_000_000_000
        if nanoseconds == 0 {
            return seconds > 0 && seconds % 86_400 == 0 ? "\(seconds / 86_400)d" : "\(seconds)s"
        }
        if nanoseconds % 1_000_000 == 0 {
            return "\(seconds * 1000 + nanoseconds / 1_000_000)ms"
        }
        var fraction = String(nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(seconds).\(fraction)s"
    }

    private static func nanoseconds(per unit: Substring) -> Int64? {
        switch unit {
        case "", "s": 1_000_000_000
        case "ms": 1_000_000
        case "min": 60_000_000_000
        case "h": 3_600_000_000_000
        case "d": 86_400_000_000_000
        default: nil
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space (no Foundation needed).
    package func trimmingWhitespace() -> Substring {
        let characters = self[...]
        guard let start = characters.firstIndex(where: { !$0.isWhitespace }),
            let end = characters.lastIndex(where: { !$0.isWhitespace })
        else { return Substring() }
        return Substring(characters[start...end])
    }
}
