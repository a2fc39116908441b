import Logging
import NIOConcurrencyHelpers

/// The daemon-wide log level, shared by every logger so a reload can change it at once.
package final class LogLevelControl: Sendable {
    private let box: NIOLockedValueBox<Logger.Level>

    package init(_ level: Logger.Level) {
        box = NIOLockedValueBox(level)
    }

    package var level: Logger.Level {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }
}
