import Logging
#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that writes one line per event to stderr, prefixed with its sd-daemon
/// priority (`<3>` error … `<7>` debug) so the journal keeps the levels.
///
/// Metadata follows the message as `key=value`. Newlines are escaped: one event, one line.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    private let control: LogLevelControl

    public init(control: LogLevelControl) {
        self.control = control
    }

    /// Read from the shared control, so a reload changes every logger's level.
    public var logLevel: Logger.Level {
        get { control.level }
        set { control.level = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    public func log(event: LogEvent) {
        var line = "<\(Self.priority(of: event.level))>\(Self.escaped(event.message.description))"
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(Self.escaped(value.description))"
        }
        StandardError.writeLine(line)
    }

    static func escaped(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline }) else { return text }
        return text.replacing("\r", with: "\\r").replacing("\n", with: "\\n")
    }
}
