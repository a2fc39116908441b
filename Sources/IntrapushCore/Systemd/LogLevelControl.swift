import Logging
import NIOConcurrencyHelpers

/// The daemon-wide log level, shared by every logger so a reload can change it at once.
public final class LogLevelControl: Sendable {
    private let box: NIOLockedValueBox<Logger.Level>

    public init(_ level: Logger.Level) {
        box = NIOLockedValueBox(level)
    }

    public var level: Logger.Level {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }
}
