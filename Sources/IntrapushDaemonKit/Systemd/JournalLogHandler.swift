import Logging
#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// A swift-log handler that writes one line per event to stderr, prefixed with its sd-daemon
/// priority (`<3>` error … `<7>` debug) so the journal keeps the levels.
///
/// Metadata follows the message as `key=value`. Newlines are escaped: one event, one line.
struct JournalLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    private let control: LogLevelControl

    init(control: LogLevelControl) {
        self.control = control
    }

    /// Read from the shared control, so a reload changes every logger's level.
    var logLevel: Logger.Level {
        get { control.level }
        set { control.level = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    func log(event: LogEvent) {
        var line = "<\(Self.priority(of: event.level))>\(Self.escaped(event.message.description))"
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(Self.escaped(value.description))"
        }
        StandardError.writeLine(line)
    }

    /// Outside text (a hook's stderr, a server's close reason) reaches log lines: every control
    /// character is written as an escape, so one event stays one line and no NUL, carriage
    /// return or terminal sequence reaches the journal or a terminal. Compared by scalar: "\r\n"
    /// is one `Character`, which a character-wise replace would miss.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isEscaped) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isEscaped(scalar) else {
                output.append(scalar)
                continue
            }
            let escape = switch scalar {
            case "\n": "\\n"
            case "\r": "\\r"
            case "\0": "\\0"
            default: scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u" + hex(scalar.value, digits: 4)
            }
            output.append(contentsOf: escape.unicodeScalars)
        }
        return String(output)
    }

    /// C0 controls but tab, DEL, C1 controls, and the Unicode line and paragraph separators.
    static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
