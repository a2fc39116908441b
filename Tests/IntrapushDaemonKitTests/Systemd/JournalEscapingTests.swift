// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("Log lines: outside text cannot break a line or reach the terminal as control characters")
struct JournalEscapingTests {
    @Test("newlines, carriage returns (also as one \\r\\n character), NUL, escape sequences and separators are escaped")
    func controlCharactersEscaped() {
        #expect(JournalLogHandler.escaped("plain text, ü and a\ttab") == "plain text, ü and a\ttab")
        #expect(JournalLogHandler.escaped("one\r\ntwo") == "one\\r\\ntwo")
        #expect(JournalLogHandler.escaped("a\nb\rc") == "a\\nb\\rc")
        #expect(JournalLogHandler.escaped("nul\u{0}here") == "nul\\0here")
        #expect(JournalLogHandler.escaped("\u{1B}[31mred") == "\\x1B[31mred")
        #expect(JournalLogHandler.escaped("del\u{7F} c1\u{85} ls\u{2028}") == "del\\x7F c1\\x85 ls\\u2028")
    }

    @Test("an escaped line holds no control character but tab")
    func noControlCharacterLeft() {
        let hostile = (0..<0x2030).compactMap(Unicode.Scalar.init).map(String.init).joined()
        let line = JournalLogHandler.escaped(hostile)
        #expect(!line.unicodeScalars.contains { JournalLogHandler.isEscaped($0) })
    }
}
