// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushQuery

@Suite("Relative times")
struct RelativeTimeOutputTests {
    let now: Int64 = 1_800_000_000_000

    func ago(_ milliseconds: Int64) -> String {
        RelativeTime.describe(milliseconds: now - milliseconds, now: now)
    }

    @Test("under a second either way is just now")
    func justNow() {
        #expect(ago(0) == "just now")
        #expect(ago(999) == "just now")
        #expect(ago(-999) == "just now")
    }

    @Test("each unit starts at its boundary and truncates just below the next")
    func boundaries() {
        #expect(ago(1000) == "1 s ago")
        #expect(ago(45_500) == "45 s ago")
        #expect(ago(59_999) == "59 s ago")
        #expect(ago(60_000) == "1 min ago")
        #expect(ago(3_599_999) == "59 min ago")
        #expect(ago(3_600_000) == "1 h ago")
        #expect(ago(86_399_999) == "23 h ago")
        #expect(ago(86_400_000) == "1 d ago")
        #expect(ago(604_799_999) == "6 d ago")
        #expect(ago(604_800_000) == "1 w ago")
        #expect(ago(3 * 604_800_000 + 5) == "3 w ago")
    }

    @Test("future instants read as in …")
    func future() {
        #expect(ago(-1000) == "in 1 s")
        #expect(ago(-8_900) == "in 8 s")
        #expect(ago(-180_000) == "in 3 min")
        #expect(ago(-2 * 86_400_000) == "in 2 d")
    }

    @Test("extreme differences neither trap nor say just now")
    func extremes() {
        #expect(RelativeTime.describe(milliseconds: .min, now: .max).hasSuffix(" w ago"))
        #expect(RelativeTime.describe(milliseconds: .max, now: .min).hasPrefix("in "))
    }
}
