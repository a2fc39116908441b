// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// The server's own word on when to come back (pure): `Retry-After` on an upgrade answered 503
/// or 429 (seconds, or an HTTP date), or `retry-after=N` in the reason of a close with code 1012
/// (Service Restart) or 1013 (Try Again Later).
package enum RetryHint {
    /// The longest wait a hint is read as. A server may say anything; every longer number, or
    /// one too long to be a number, means "a long time", and `Backoff` caps the wait below this.
    package static let longest: Duration = .seconds(86_400)

    /// `Retry-After: 30` or `Retry-After: Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate, the form
    /// RFC 9110 requires of senders), relative to `now` (Unix seconds); a date in the past is 0.
    package static func parseHeader(_ value: String, now: Int64) -> Duration? {
        let text = String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        if let seconds = wholeSeconds(text) { return seconds }
        guard let date = imfFixdate(text) else { return nil }
        return .seconds(min(max(0, date - now), longest.components.seconds))
    }

    /// `retry-after=N` (N whole seconds, case ignored) in a close reason of code 1012 or 1013.
    package static func parseCloseReason(code: UInt16?, reason: String) -> Duration? {
        guard code == 1012 || code == 1013 else { return nil }
        guard let match = reason.lowercased().firstMatch(of: /retry-after=([0-9]+)/) else { return nil }
        return wholeSeconds(String(match.1))
    }

    /// Decimal digits only (no sign), at most `longest`: `Int64` would trap on no arithmetic,
    /// but a number of any length must still read as a wait, never as nothing or a negative.
    static func wholeSeconds(_ text: String) -> Duration? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let significant = text.drop { $0 == "0" }
        guard significant.count <= 9, let seconds = Int64(significant.isEmpty ? "0" : String(significant)) else { return longest }
        return min(.seconds(seconds), longest)
    }

    /// Unix seconds of `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func imfFixdate(_ text: String) -> Int64? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard let match = text.lowercased().wholeMatch(of: /[a-z]{3}, ([0-9]{2}) ([a-z]{3}) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) gmt/),
            let day = Int64(match.1), let monthIndex = months.firstIndex(of: String(match.2)), let year = Int64(match.3),
            let hour = Int64(match.4), let minute = Int64(match.5), let second = Int64(match.6),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        return CivilCalendar.days(year: year, month: Int64(monthIndex + 1), day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }
}
