// SPDX-License-Identifier: Apache-2.0

/// Formats Unix milliseconds as text, for programs (RFC 3339 UTC) and for people (local wall time).
///
/// Both run once per row of large outputs, so they write ASCII digits into a fixed buffer rather
/// than going through Foundation's date formatting. Instants outside years 0...9999 are clamped to
/// that range, since RFC 3339 has exactly four year digits.
package enum Timestamp {
    /// RFC 3339 UTC with exactly three fraction digits: "2026-11-22T01:02:03.456Z". Pre-1970
    /// (negative) values work, on the proleptic Gregorian calendar.
    package static func rfc3339(milliseconds: Int64) -> String {
        String(unsafeUninitializedCapacity: rfc3339Length) { buffer in
            writeRFC3339(milliseconds: milliseconds, into: buffer)
            return rfc3339Length
        }
    }

    /// Appends `rfc3339(milliseconds:)` without a temporary heap string.
    package static func appendRFC3339(milliseconds: Int64, to output: inout String) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: rfc3339Length) { buffer in
            writeRFC3339(milliseconds: milliseconds, into: buffer)
            // Halves of at most 15 bytes are small strings, which live inline rather than on the heap.
            output.append(String(decoding: UnsafeMutableBufferPointer(rebasing: buffer[..<12]), as: UTF8.self))
            output.append(String(decoding: UnsafeMutableBufferPointer(rebasing: buffer[12...]), as: UTF8.self))
        }
    }

    /// Local wall time for people, to the second: "2026-11-22 09:02:03".
    package static func local(milliseconds: Int64, timeZone: LocalTimeZone = .system) -> String {
        String(unsafeUninitializedCapacity: localLength) { buffer in
            var writer = ByteWriter(buffer: buffer)
            writer.writeDateTime(timeZone.dateTime(milliseconds: milliseconds), separator: UInt8(ascii: " "))
            return localLength
        }
    }

    static let rfc3339Length = 24
    static let localLength = 19

    private static func writeRFC3339(milliseconds: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let dateTime = CivilCalendar.dateTime(milliseconds: milliseconds)
        var writer = ByteWriter(buffer: buffer)
        writer.writeDateTime(dateTime, separator: UInt8(ascii: "T"))
        writer.write(UInt8(ascii: "."))
        writer.write(dateTime.millisecond, digits: 3)
        writer.write(UInt8(ascii: "Z"))
    }
}
