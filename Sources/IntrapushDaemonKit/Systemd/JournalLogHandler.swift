import Logging
#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// A swift-log handler that writes one line per event to stderr, prefixed with its sd-daemon
/// priority (`<3>` error … `<7>` debug) so the journal keeps the levels.
///
/// Metadata follows the message as `key=value`. Newlines are escaped: one event, one line.
package struct JournalLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    private let control: LogLevelControl

    package init(control: LogLevelControl) {
        self.control = control
    }

    /// Read from the shared control, so a reload changes every logger's level.
    package var logLevel: Logger.Level {
        get { control.level }
        set { control.level = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    package func log(event: LogEvent) {
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
