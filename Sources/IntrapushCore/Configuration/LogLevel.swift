import Logging

/// The `log_level` setting: the lowest severity the daemon writes.
public enum LogLevel: String, Sendable, Equatable, CaseIterable {
    case debug
    case info
    case warning
    case error

    /// The matching swift-log level.
    public var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
