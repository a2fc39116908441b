/// Writes bytes into a buffer that the caller sized exactly, for strings built in one allocation.
struct ByteWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var position = 0

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        buffer[position] = byte
        position += 1
    }

    /// Zero-padded decimal; a value too wide for `digits` saturates at all nines rather than wrapping.
    @inline(__always)
    mutating func write(_ value: Int64, digits: Int) {
        var remaining = value
        var limit: Int64 = 1
        for _ in 0..<digits { limit *= 10 }
        remaining = min(max(remaining, 0), limit - 1)
        for index in stride(from: position + digits - 1, through: position, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        position += digits
    }

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
