// SPDX-License-Identifier: Apache-2.0

extension ByteWriter {

    /// "YYYY-MM-DD?HH:MM:SS", 19 bytes.
    mutating func writeDateTime(_ dateTime: CivilCalendar.DateTime, separator: UInt8) {
        write(dateTime.year, digits: 4)
        write(UInt8(ascii: "-"))
        write(dateTime.month, digits: 2)
        write(UInt8(ascii: "-"))
        write(dateTime.day, digits: 2)
        write(separator)
        write(dateTime.hour, digits: 2)
        write(UInt8(ascii: ":"))
        write(dateTime.minute, digits: 2)
        write(UInt8(ascii: ":"))
        write(dateTime.second, digits: 2)
    }
}
