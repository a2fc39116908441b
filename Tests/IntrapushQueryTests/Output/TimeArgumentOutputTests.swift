// SPDX-License-Identifier: Apache-2.0

@testable import IntrapushSupport
import Testing

@testable import IntrapushQuery
@testable import IntrapushInterface

@Suite("Time arguments: RFC 3339, dates, ages")
struct TimeArgumentOutputTests {
    let now: Int64 = 1_800_000_000_000

    func utc(_ text: String, timeZone: LocalTimeZone = .fixed(offsetSeconds: 0)) -> String? {
        TimeArgument.parse(text, now: now, timeZone: timeZone).map { Timestamp.rfc3339(milliseconds: $0) }
    }

    @Test("RFC 3339 times with Z, offsets, fractions, lowercase and a space")
    func rfc3339() {
        #expect(utc("2026-11-22T01:02:03Z") == "2026-11-22T01:02:03.000Z")
        #expect(utc("2026-11-22T01:02:03.5+08:00") == "2026-11-21T17:02:03.500Z")
        #expect(utc("2026-11-22 09:02:03-05:30") == "2026-11-22T14:32:03.000Z")
        #expect(utc("2026-11-22t01:02:03.123456789z") == "2026-11-22T01:02:03.123Z")
        #expect(utc("2026-11-22T01:02:03.09+00:00") == "2026-11-22T01:02:03.090Z")
        #expect(utc("2026-12-31T23:59:60Z") == "2027-01-01T00:00:00.000Z")
        #expect(utc("1969-12-31T23:59:59.999Z") == "1969-12-31T23:59:59.999Z")
    }

    @Test("parse(rfc3339(x)) == x across the whole supported range")
    func roundTrip() {
        var random = SystemRandomNumberGenerator()
        let edges: [Int64] = [0, -1, 1, CivilCalendar.earliestMilliseconds, CivilCalendar.latestMilliseconds]
        let samples = edges + (0..<2000).map { _ in
            Int64.random(in: CivilCalendar.earliestMilliseconds...CivilCalendar.latestMilliseconds, using: &random)
        }
        for value in samples {
            #expect(TimeArgument.parse(Timestamp.rfc3339(milliseconds: value), now: now) == value)
        }
    }

    @Test("a date is its local midnight in the given zone")
    func dates() {
        #expect(utc("2026-11-22", timeZone: .fixed(offsetSeconds: 3600)) == "2026-11-21T23:00:00.000Z")
        #expect(utc("2026-11-22", timeZone: .fixed(offsetSeconds: -5 * 3600)) == "2026-11-22T05:00:00.000Z")
        #expect(utc("2024-02-29") == "2024-02-29T00:00:00.000Z")
        #expect(utc("2000-02-29") == "2000-02-29T00:00:00.000Z")
    }

    @Test("a date in the system zone comes back as that date's midnight in local time")
    func systemDate() {
        let midnight = TimeArgument.parse("2026-11-22", now: now)
        #expect(midnight.map { Timestamp.local(milliseconds: $0) } == "2026-11-22 00:00:00")
    }

    @Test("ages count back from now in each accepted unit")
    func ages() {
        #expect(TimeArgument.parse("30s", now: now) == now - 30_000)
        #expect(TimeArgument.parse("10sec", now: now) == now - 10_000)
        #expect(TimeArgument.parse("15min", now: now) == now - 900_000)
        #expect(TimeArgument.parse("2h", now: now) == now - 7_200_000)
        #expect(TimeArgument.parse("7d", now: now) == now - 604_800_000)
        #expect(TimeArgument.parse("2w", now: now) == now - 1_209_600_000)
        #expect(TimeArgument.parse("0s", now: now) == now)
    }

    @Test("rejects what is none of the forms or out of range", arguments: [
        "", "yesterday", "2026-13-01", "2026-02-30", "2026-02-29", "1900-02-29", "2026-11-32", "2026-00-10",
        "5m", "-5min", "15 min", "15MIN", "1h30min", "min", "99999999999999999999s", "9999999999w",
        "2026-11-22T25:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T01:60:00Z", "2026-11-22T01:02:61Z",
        "2026-11-22T01:02Z", "2026-11-22T01:02:03", "2026-11-22T01:02:03.Z", "2026-11-22T01:02:03+8:00",
        "2026-11-22T01:02:03+24:00", "2026-11-22T01:02:03Zjunk", "2026-11-22X01:02:03Z", " 2026-11-22",
        "2026-11-22 ", "26-11-22", "0000-01-01T00:00:00+01:00",
    ])
    func rejects(text: String) {
        #expect(TimeArgument.parse(text, now: now, timeZone: .fixed(offsetSeconds: 0)) == nil)
    }

    @Test("the hint names every form with an example")
    func expectedForms() {
        #expect(TimeArgument.expectedForms
            == "use an RFC 3339 time (2026-11-22T08:00:00Z), a date (2026-11-22) or an age (15min, 2h, 7d)")
    }
}
