// SPDX-License-Identifier: Apache-2.0

/// The `log_level` setting: the lowest severity the daemon writes.
package enum LogLevel: String, Sendable, Equatable, CaseIterable {
    case debug
    case info
    case warning
    case error
}
