// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushQuery

@Suite("Display width, truncation and single lines")
struct DisplayWidthOutputTests {
    @Test("columns per grapheme cluster", arguments: [
        ("hello", 5), ("", 0), ("告警服务器", 10), ("e\u{301}", 1), ("😀", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2),
        ("❤️", 2), ("❤", 1), ("🇨🇳", 2), ("ｈｉ", 4), ("한국", 4), ("\u{200B}", 0), ("a\u{200D}b", 2),
        ("CPU 告警 ok", 11), ("1️⃣", 2), ("カタカナ", 8), ("ﾊﾝｶｸ", 4), ("…", 1), ("\u{1B}[1m", 3),
    ] as [(String, Int)])
    func widths(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("substrings are measured like strings")
    func substrings() {
        let text = "ID 告警"
        #expect(DisplayWidth.of(text.dropFirst(3)) == 4)
    }

    @Test("truncation keeps text that fits and otherwise ends in an ellipsis")
    func truncation() {
        #expect(DisplayWidth.truncate("hello", toWidth: 5) == "hello")
        #expect(DisplayWidth.truncate("hello world", toWidth: 5) == "hell…")
        #expect(DisplayWidth.truncate("ab cd", toWidth: 4) == "ab…")
        #expect(DisplayWidth.truncate("hello", toWidth: 1) == "…")
        #expect(DisplayWidth.truncate("hello", toWidth: 0) == "")
        #expect(DisplayWidth.truncate("告警服务器", toWidth: 5) == "告警…")
        #expect(DisplayWidth.truncate("告警服务器", toWidth: 4) == "告…")
        #expect(DisplayWidth.truncate("e\u{301}e\u{301}e\u{301}", toWidth: 2) == "e\u{301}…")
    }

    @Test("a truncated text never exceeds its width, wide characters at the edge included")
    func truncationNeverOverflows() {
        let texts = ["告警服务器 disk 90%", "a告b警c", "😀😀x😀", "👨‍👩‍👧 family", "plain ascii text", "e\u{301}告🇨🇳x"]
        for text in texts {
            for width in 0...(DisplayWidth.of(text) + 2) {
                let cut = DisplayWidth.truncate(text, toWidth: width)
                #expect(DisplayWidth.of(cut) <= width, "\(text) at \(width): \(cut)")
                #expect(cut == text || cut.hasSuffix("…") || cut.isEmpty)
                #expect(DisplayWidth.of(cut) >= width - 2 || cut == text, "not cut shorter than needed")
            }
        }
    }

    @Test("the per-scalar fast paths agree with measuring every grapheme cluster")
    func fastPathsAgree() {
        let pieces = ["a", " ", "告", "é", "e", "\u{301}", "😀", "\u{FE0F}", "\r", "\n", "ｈ", "한", "\u{200D}",
            "\u{1100}", "\u{1161}", "\u{11A8}", "。", "🇨", "🇳", "\u{3099}", "カ"]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let exact = text.reduce(0) { $0 + DisplayWidth.width(of: $1) }
            #expect(DisplayWidth.of(text) == exact, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            for width in 0...exact {
                let cut = DisplayWidth.truncate(text, toWidth: width)
                #expect(DisplayWidth.of(cut) <= width)
                #expect(cut == text || text.hasPrefix(cut.dropLast()))
            }
        }
    }

    @Test("a CR LF pair is never cut in two")
    func crlfKeptWhole() {
        #expect(DisplayWidth.truncate("ab\r\ncd", toWidth: 3) == "ab\r\n…")
    }

    @Test("control characters become single spaces, runs collapse, ESC is gone")
    func singleLine() {
        #expect(DisplayWidth.singleLine("a\nb") == "a b")
        #expect(DisplayWidth.singleLine("a\r\n\tb") == "a b")
        #expect(DisplayWidth.singleLine("a\n\nb\nc") == "a b c")
        #expect(DisplayWidth.singleLine("\u{1B}[31mred\u{1B}[0m") == " [31mred [0m")
        #expect(DisplayWidth.singleLine("x\u{7F}\u{85}\u{9B}y") == "x y")
        #expect(DisplayWidth.singleLine("x\u{2028}y\u{2029}z") == "x y z")
        #expect(DisplayWidth.singleLine("告警\n服务器 é") == "告警 服务器 é")
        #expect(DisplayWidth.singleLine("already one line, ¢ and ≥") == "already one line, ¢ and ≥")
        #expect(!DisplayWidth.singleLine("\u{1B}]0;title\u{7}").unicodeScalars.contains { $0.value < 0x20 })
    }
}
