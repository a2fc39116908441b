// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import IntrapushSupport
@testable import IntrapushQuery
@testable import IntrapushInterface

@Suite("Timestamp formatting")
struct TimestampOutputTests {
    @Test("known instants format as RFC 3339 UTC with three fraction digits")
    func knownValues() {
        #expect(Timestamp.rfc3339(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(milliseconds: 1_700_000_000_123) == "2023-11-14T22:13:20.123Z")
        #expect(Timestamp.rfc3339(milliseconds: 1_709_210_096_789) == "2024-02-29T12:34:56.789Z")
        #expect(Timestamp.rfc3339(milliseconds: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(milliseconds: 5) == "1970-01-01T00:00:00.005Z")
    }

    @Test("pre-1970 instants use floor division and the proleptic Gregorian calendar")
    func negativeValues() {
        #expect(Timestamp.rfc3339(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(milliseconds: -86_400_001) == "1969-12-30T23:59:59.999Z")
        #expect(Timestamp.rfc3339(milliseconds: -2_203_891_200_000) == "1900-03-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(milliseconds: -62_135_596_800_000) == "0001-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(milliseconds: -62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
    }

    @Test("instants outside years 0...9999 clamp instead of printing five digits or trapping")
    func clamping() {
        #expect(Timestamp.rfc3339(milliseconds: .max) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(milliseconds: .min) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.local(milliseconds: .max, timeZone: .fixed(offsetSeconds: 3600)) == "9999-12-31 23:59:59")
    }

    @Test("agrees with the C library's gmtime_r on many instants")
    func matchesGmtime() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)
            var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
            var fields = tm()
            _ = gmtime_r(&seconds, &fields)
            let millisecond = ((milliseconds % 1000) + 1000) % 1000
            let expected = pad(Int(fields.tm_year) + 1900, 4) + "-" + pad(Int(fields.tm_mon) + 1, 2) + "-"
                + pad(Int(fields.tm_mday), 2) + "T" + pad(Int(fields.tm_hour), 2) + ":" + pad(Int(fields.tm_min), 2)
                + ":" + pad(Int(fields.tm_sec), 2) + "." + pad(Int(millisecond), 3) + "Z"
            #expect(Timestamp.rfc3339(milliseconds: milliseconds) == expected, "\(milliseconds)")
        }
    }

    @Test("appendRFC3339 appends exactly what rfc3339 returns")
    func appending() {
        var output = "at "
        Timestamp.appendRFC3339(milliseconds: 1_700_000_000_123, to: &output)
        #expect(output == "at 2023-11-14T22:13:20.123Z")
        var negative = ""
        Timestamp.appendRFC3339(milliseconds: -1, to: &negative)
        #expect(negative == Timestamp.rfc3339(milliseconds: -1))
    }

    @Test("local time in a fixed zone shifts the wall clock and drops the milliseconds")
    func localFixedZone() {
        #expect(Timestamp.local(milliseconds: 1_700_000_000_999, timeZone: .fixed(offsetSeconds: 8 * 3600))
            == "2023-11-15 06:13:20")
        #expect(Timestamp.local(milliseconds: 1_700_000_000_000, timeZone: .fixed(offsetSeconds: -(5 * 3600 + 1800)))
            == "2023-11-14 16:43:20")
        #expect(Timestamp.local(milliseconds: -1, timeZone: .fixed(offsetSeconds: 0)) == "1969-12-31 23:59:59")
    }

    @Test("system local time agrees with mktime: the date's local midnight is at most a day earlier")
    func localSystemZone() throws {
        for milliseconds: Int64 in [0, 1_700_000_000_123, 1_709_210_096_789, 1_790_000_000_000] {
            let text = Timestamp.local(milliseconds: milliseconds)
            #expect(text.utf8.count == 19)
            let midnight = try #require(TimeArgument.parse(String(text.prefix(10)), now: 0))
            #expect(midnight <= milliseconds && milliseconds - midnight < 25 * 3_600_000, "\(text)")
        }
    }

    private func pad(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(digits - text.count, 0)) + text
    }
}
