// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
/// Reads the CLI's time arguments (`--since`, `--until`): an RFC 3339 time, a local date, or an age.
package enum TimeArgument {
    /// What a failed parse should tell the user, after `--since: cannot read "x"; `.
    package static let expectedForms =
        "use an RFC 3339 time (2026-11-22T08:00:00Z), a date (2026-11-22) or an age (15min, 2h, 7d)"

    /// Unix milliseconds for `text`, or nil when it is none of the accepted forms or out of range
    /// (month 13, day 32, Feb 30, hour 24 …, or outside years 0...9999).
    ///
    /// - RFC 3339: "2026-11-22T01:02:03Z", "2026-11-22 01:02:03.5+08:00"; `t`/`z` in lowercase and a
    ///   space for `T` are accepted; seconds and the offset are required; fraction digits of any
    ///   length are truncated to milliseconds; second 60 (a leap second) reads as the next second.
    /// - A date, "2026-11-22": its midnight in `timeZone`.
    /// - An age back from `now`: a whole number and one of `s`, `sec`, `min`, `h`, `d`, `w` ("15min",
    ///   "7d"). A bare `m` is rejected because it could mean minutes or months.
    package static func parse(_ text: String, now: Int64, timeZone: LocalTimeZone = .system) -> Int64? {
        var scanner = ByteScanner(text)
        let milliseconds: Int64?
        if let age = scanner.age() {
            let (then, overflow) = now.subtractingReportingOverflow(age)
            milliseconds = overflow ? nil : then
        } else if let date = scanner.date() {
            if scanner.isAtEnd {
                milliseconds = timeZone.midnightMilliseconds(year: date.year, month: date.month, day: date.day)
            } else {
                milliseconds = scanner.timeAfterDate(date)
            }
        } else {
            milliseconds = nil
        }
        guard let milliseconds,
            (CivilCalendar.earliestMilliseconds...CivilCalendar.latestMilliseconds).contains(milliseconds)
        else { return nil }
        return milliseconds
    }
}

/// A cursor over the UTF-8 of one argument; each reader consumes what it matched or returns nil.
private struct ByteScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var isAtEnd: Bool { position == bytes.count }

    /// Milliseconds of "<digits><unit>", the whole text.
    mutating func age() -> Int64? {
        let start = position
        guard let count = number(maximumDigits: 18) else {
            position = start
            return nil
        }
        let unitText = bytes[position...]
        let unit: Int64? =
            switch String(decoding: unitText, as: UTF8.self) {
            case "s", "sec": 1000
            case "min": 60_000
            case "h": 3_600_000
            case "d": 86_400_000
            case "w": 604_800_000
            default: nil
            }
        guard let unit else {
            position = start
            return nil
        }
        position = bytes.count
        let (milliseconds, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? nil : milliseconds
    }

    /// "YYYY-MM-DD", checked against the calendar.
    mutating func date() -> (year: Int64, month: Int64, day: Int64)? {
        guard let year = digits(4), skip("-"), let month = digits(2), skip("-"), let day = digits(2),
            (1...12).contains(month), (1...CivilCalendar.daysInMonth(month, year: year)).contains(day)
        else { return nil }
        return (year, month, day)
    }

    /// The rest of an RFC 3339 time after its date: "THH:MM:SS[.fff…](Z|±HH:MM)", to the end.
    mutating func timeAfterDate(_ date: (year: Int64, month: Int64, day: Int64)) -> Int64? {
        guard skip("T") || skip("t") || skip(" "),
            let hour = digits(2), skip(":"), let minute = digits(2), skip(":"), let second = digits(2),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var millisecond: Int64 = 0
        if skip(".") {
            guard let fraction = fractionMilliseconds() else { return nil }
            millisecond = fraction
        }
        guard let offsetSeconds = offset(), isAtEnd else { return nil }
        let days = CivilCalendar.days(year: date.year, month: date.month, day: date.day)
        let secondOfDay = hour * 3600 + minute * 60 + second
        return (days * 86_400 + secondOfDay - offsetSeconds) * 1000 + millisecond
    }

    /// One or more digits, the first three as milliseconds and the rest dropped.
    private mutating func fractionMilliseconds() -> Int64? {
        var milliseconds: Int64 = 0
        var count = 0
        while let digit = digit() {
            if count < 3 { milliseconds = milliseconds * 10 + digit }
            count += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { milliseconds *= 10 }
        return milliseconds
    }

    /// "Z" or "±HH:MM", as seconds east of UTC.
    private mutating func offset() -> Int64? {
        if skip("Z") || skip("z") { return 0 }
        let sign: Int64
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = digits(2), skip(":"), let minutes = digits(2), hours < 24, minutes < 60 else {
            return nil
        }
        return sign * (hours * 3600 + minutes * 60)
    }

    private mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    private mutating func digit() -> Int64? {
        guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else {
            return nil
        }
        position += 1
        return Int64(bytes[position - 1] - UInt8(ascii: "0"))
    }

    /// Exactly `count` digits.
    private mutating func digits(_ count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// One to `maximumDigits` digits, so that the value cannot overflow.
    private mutating func number(maximumDigits: Int) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while let digit = digit() {
            count += 1
            guard count <= maximumDigits else { return nil }
            value = value * 10 + digit
        }
        return count > 0 ? value : nil
    }
}
