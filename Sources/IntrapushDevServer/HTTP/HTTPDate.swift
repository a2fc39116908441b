// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// HTTP dates in the form RFC 9110 requires of senders (IMF-fixdate).
enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT` for Unix time `unixSeconds`.
    static func imfFixdate(unixSeconds: Int) -> String {
        let time = CivilCalendar.dateTime(milliseconds: Int64(unixSeconds) * 1000)
        let days = CivilCalendar.floorDivision(Int64(unixSeconds), 86_400).quotient
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(CivilCalendar.floorDivision(days, 7).remainder)]), \(two(time.day)) \(months[Int(time.month) - 1]) "
            + "\(time.year) \(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }
}
