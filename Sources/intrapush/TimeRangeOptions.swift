// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `--since` and `--until`, for every command that selects by time.
struct TimeRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Only notifications received at or after this time.",
        discussion: "An RFC 3339 time (2026-11-22T08:00:00Z), a date (2026-11-22, local midnight) or an age (30s, 15min, 2h, 7d).",
        valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Only notifications received before this time (same forms as --since).", valueName: "time"))
    var until: String?

    func validate() throws {
        _ = try bounds()
    }

    /// Unix milliseconds; a value that is none of the forms fails validation, naming its option.
    func bounds() throws -> (since: Int64?, until: Int64?) {
        (try parseTime(since, option: "--since"), try parseTime(until, option: "--until"))
    }
}
