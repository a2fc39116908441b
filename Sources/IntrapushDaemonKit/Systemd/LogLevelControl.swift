// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOConcurrencyHelpers

/// The daemon-wide log level, shared by every logger so a reload can change it at once.
final class LogLevelControl: Sendable {
    private let box: NIOLockedValueBox<Logger.Level>

    init(_ level: Logger.Level) {
        box = NIOLockedValueBox(level)
    }

    var level: Logger.Level {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }
}
