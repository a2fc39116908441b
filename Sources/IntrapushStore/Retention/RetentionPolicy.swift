// SPDX-License-Identifier: Apache-2.0

/// How long notifications are kept: `retention_days` and `retention_max_rows`.
///
/// Zero lifts a limit: `days == 0` keeps notifications forever, `maximumRows == 0` keeps any
/// number of them. Age counts from `received_at`, the time the daemon stored the push.
package struct RetentionPolicy: Sendable, Equatable, CustomStringConvertible {
    /// Rows received more than this many days ago are pruned; 0 keeps them forever.
    package var days: Int
    /// Beyond this many rows the oldest (lowest ids) are pruned; 0 is no limit.
    package var maximumRows: Int

    package init(days: Int, maximumRows: Int) {
        self.days = max(0, days)
        self.maximumRows = max(0, maximumRows)
    }

    /// `true` when nothing is ever pruned.
    package var keepsEverything: Bool { days == 0 && maximumRows == 0 }

    /// Rows whose `received_at` is below this are too old; `nil` when age does not matter.
    package func ageCutoff(now: Int64) -> Int64? {
        guard days > 0 else { return nil }
        let (age, overflow) = Int64(days).multipliedReportingOverflow(by: 86_400_000)
        return overflow ? nil : now - age
    }

    /// For the log and `status`: `90 days, at most 1000000 rows`, `kept forever`.
    package var description: String {
        Self.describe(days: days, maximumRows: maximumRows)
    }

    package static func describe(days: Int, maximumRows: Int) -> String {
        switch (days, maximumRows) {
        case (0, 0): return "kept forever"
        case (0, _): return "at most \(maximumRows) rows"
        case (_, 0): return "\(days) day\(days == 1 ? "" : "s")"
        default: return "\(days) day\(days == 1 ? "" : "s"), at most \(maximumRows) rows"
        }
    }
}
