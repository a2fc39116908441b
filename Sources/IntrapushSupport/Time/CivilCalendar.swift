// SPDX-License-Identifier: Apache-2.0

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after Howard
/// Hinnant's `days_from_civil`/`civil_from_days`, so that no C library or Foundation call is needed.
package enum CivilCalendar {
    /// A calendar date with its wall-clock time to the millisecond.
    package struct DateTime: Equatable {
        package var year: Int64
        package var month: Int64
        package var day: Int64
        package var hour: Int64
        package var minute: Int64
        package var second: Int64
        package var millisecond: Int64

        package init(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64) {
            (self.year, self.month, self.day) = (year, month, day)
            (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
        }
    }

    package static let millisecondsPerDay: Int64 = 86_400_000

    /// 0000-01-01T00:00:00.000Z, the first instant this module formats or parses.
    package static let earliestMilliseconds: Int64 = -62_167_219_200_000
    /// 9999-12-31T23:59:59.999Z, the last.
    package static let latestMilliseconds: Int64 = 253_402_300_799_999

    package static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    package static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Splits Unix milliseconds, clamped to years 0...9999 so that the result always has four
    /// year digits.
    package static func dateTime(milliseconds: Int64) -> DateTime {
        let clamped = min(max(milliseconds, earliestMilliseconds), latestMilliseconds)
        let (days, inDay) = floorDivision(clamped, millisecondsPerDay)
        let (year, month, day) = date(days: days)
        return DateTime(
            year: year, month: month, day: day,
            hour: inDay / 3_600_000, minute: inDay / 60_000 % 60, second: inDay / 1000 % 60,
            millisecond: inDay % 1000
        )
    }

    /// Quotient and non-negative remainder, as calendars need for instants before 1970.
    package static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
