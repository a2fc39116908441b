// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Duration parsing")
struct DurationParserTests {
    @Test(
        "every unit, fractions and bare numbers of seconds",
        arguments: [
            ("250ms", Duration.milliseconds(250)),
            ("10s", .seconds(10)),
            ("5min", .seconds(300)),
            ("1h", .seconds(3600)),
            ("10", .seconds(10)),
            ("1.5", .milliseconds(1500)),
            ("0.3", .milliseconds(300)),
            ("1.5h", .seconds(5400)),
            ("0.25ms", .microseconds(250)),
            ("2.5min", .seconds(150)),
            (" 10 s ", .seconds(10)),
            ("0.000000001", .nanoseconds(1)),
        ])
    func valid(text: String, expected: Duration) {
        #expect(DurationParser.parse(text) == expected)
    }

    @Test(
        "text that is not a duration is rejected",
        arguments: [
            "", "s", "ms", "10 parsecs", "10sec", "10m", "1h30min", "1e3", "inf", "nan", ".5", "5.",
            "1..5", "1.2.3", "0x10", "ten", "10 s s", "٣s",
        ])
    func invalid(text: String) {
        #expect(DurationParser.parse(text) == nil)
    }

    @Test("negative durations are rejected", arguments: ["-1", "-5s", "-0.5", "+5s"])
    func negative(text: String) {
        #expect(DurationParser.parse(text) == nil)
    }

    @Test("zero parses, in any unit, as zero")
    func zero() {
        #expect(DurationParser.parse("0") == .zero)
        #expect(DurationParser.parse("0ms") == .zero)
        #expect(DurationParser.parse("0.0h") == .zero)
    }

    @Test("absurdly long durations are rejected rather than overflowing")
    func overflow() {
        #expect(DurationParser.parse("99999999999h") == nil)
        #expect(DurationParser.parse("999999999999999999999") == nil)
        #expect(DurationParser.parse("87600h") == .seconds(87600 * 3600))
    }
}
