// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// What the CLI needs to know about where its output goes.
package enum Terminal {
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Columns to fit tables into: the terminal's width; on a pipe `COLUMNS` when set, else `nil`
    /// (no fitting, so that `grep` sees whole lines).
    package static func width(of descriptor: Int32, environment: [String: String]) -> Int? {
        if isTerminal(descriptor) {
            var size = winsize()
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 { return columns }
        return isTerminal(descriptor) ? 80 : nil
    }

    /// Colour only on a terminal, never with `NO_COLOR` (https://no-color.org) or `TERM=dumb`.
    package static func usesColor(_ descriptor: Int32, environment: [String: String]) -> Bool {
        guard isTerminal(descriptor) else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}

/// Buffered writes to standard output with write(2), flushed in large chunks (a million-row
/// export) or on demand (each `follow` batch).
package final class StandardOutput {
    private var buffer: [UInt8] = []
    private let descriptor: Int32
    private static let flushThreshold = 64 * 1024

    package init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    deinit { _ = flush() }

    package func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { _ = flush() }
    }

    /// Writes everything buffered; `false` when the output is gone (EPIPE when SIGPIPE is ignored).
    @discardableResult
    package func flush() -> Bool {
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
