// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The zone in which people read and write wall-clock times.
///
/// `.system` asks the C library (`localtime_r`, and `mktime` with `tm_isdst = -1` so that the C
/// library decides whether summer time applies); tests use `.fixed(offsetSeconds:)` so that they do
/// not depend on the machine's zone.
package enum LocalTimeZone: Sendable {
    case system
    case fixed(offsetSeconds: Int)

    /// Unix milliseconds of the first instant of a local date, or nil when the C library cannot
    /// represent it.
    package func midnightMilliseconds(year: Int64, month: Int64, day: Int64) -> Int64? {
        switch self {
        case .fixed(let offsetSeconds):
            let days = CivilCalendar.days(year: year, month: month, day: day)
            return (days * 86_400 - Int64(offsetSeconds)) * 1000
        case .system:
            var fields = tm()
            fields.tm_year = Int32(year - 1900)
            fields.tm_mon = Int32(month - 1)
            fields.tm_mday = Int32(day)
            fields.tm_isdst = -1
            let seconds = mktime(&fields)
            // -1 is also 1969-12-31T23:59:59Z, which is no zone's midnight.
            return seconds == -1 ? nil : Int64(seconds) * 1000
        }
    }

    /// The wall-clock reading of an instant in this zone.
    package func dateTime(milliseconds: Int64) -> CivilCalendar.DateTime {
        switch self {
        case .fixed(let offsetSeconds):
            let (shifted, overflow) = milliseconds.addingReportingOverflow(Int64(offsetSeconds) * 1000)
            return CivilCalendar.dateTime(milliseconds: overflow ? milliseconds : shifted)
        case .system:
            let clamped = min(max(milliseconds, CivilCalendar.earliestMilliseconds), CivilCalendar.latestMilliseconds)
            let (seconds, millisecond) = CivilCalendar.floorDivision(clamped, 1000)
            var time = time_t(seconds)
            var fields = tm()
            guard localtime_r(&time, &fields) != nil else {
                return CivilCalendar.dateTime(milliseconds: clamped)
            }
            return CivilCalendar.DateTime(
                year: Int64(fields.tm_year) + 1900, month: Int64(fields.tm_mon) + 1, day: Int64(fields.tm_mday),
                hour: Int64(fields.tm_hour), minute: Int64(fields.tm_min), second: Int64(fields.tm_sec),
                millisecond: millisecond
            )
        }
    }
}
