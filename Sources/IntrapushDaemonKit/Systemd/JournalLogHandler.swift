// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Logging
#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// A swift-log handler for the journal. Where systemd connected standard error to the journal
/// (`JOURNAL_STREAM`), each event goes there natively (`sd_journal_sendv`): the message, its
/// priority, the `MESSAGE_ID` of a `JournalEvent`, and each metadata item as a field of its own
/// (`INTRAPUSH_SERVER=…`) that a log pipeline can select by. Elsewhere (a terminal, the tests, a
/// container without a journal) one line per event on standard error, prefixed with its
/// sd-daemon priority (`<3>` error … `<7>` debug), metadata after the message as `key=value`.
/// Control characters are escaped either way: one event, one line.
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
        let merged = (event.metadata.map { metadata.merging($0) { $1 } } ?? metadata).sorted(by: { $0.key < $1.key })
        let priority = Self.priority(of: event.level)
        let message = Self.escaped(event.message.description)
        if Self.isJournalConnected, Self.send(priority: priority, message: message, metadata: merged) { return }
        var line = "<\(priority)>\(message)"
        for (key, value) in merged {
            line += " \(key)=\(Self.escaped(value.description))"
        }
        StandardError.writeLine(line)
    }

    /// Whether standard error is the journal's stream, as systemd says in `JOURNAL_STREAM`
    /// (`device:inode`): then the journal's own socket takes the events, fields and all.
    static let isJournalConnected: Bool = {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }()

    /// The event as journal fields; `false` when the journal did not take it.
    static func send(priority: Int, message: String, metadata: [(key: String, value: Logger.Metadata.Value)]) -> Bool {
        var fields = ["MESSAGE=\(message)", "PRIORITY=\(priority)", "SYSLOG_IDENTIFIER=intrapushd"]
        for (key, value) in metadata {
            let text = Self.escaped(value.description)
            if key == "event", let event = JournalEvent(rawValue: text) { fields.append("MESSAGE_ID=\(event.messageID)") }
            fields.append("INTRAPUSH_\(fieldName(key))=\(text)")
        }
        let buffers = fields.map { Array($0.utf8) }
        var vectors: [iovec] = []
        var pointers: [UnsafeMutableRawPointer] = []
        defer { for pointer in pointers { pointer.deallocate() } }
        for bytes in buffers {
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            pointers.append(pointer)
            vectors.append(iovec(iov_base: pointer, iov_len: bytes.count))
        }
        return sd_journal_sendv(vectors, Int32(vectors.count)) >= 0
    }

    /// A metadata key as a journal field name: capitals, digits and underscores.
    static func fieldName(_ key: String) -> String {
        String(key.uppercased().unicodeScalars.map { ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" })
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
