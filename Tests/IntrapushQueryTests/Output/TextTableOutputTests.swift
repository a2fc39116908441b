// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushQuery

@Suite("Text tables")
struct TextTableOutputTests {
    let columns = [
        TextTable.Column("ID", alignment: .right),
        TextTable.Column("RECEIVED"),
        TextTable.Column("TITLE", isFlexible: true),
        TextTable.Column("BODY", isFlexible: true),
    ]
    let rows = [
        ["7", "3 min ago", "Disk almost full on build-01", "The /var partition is at 93% and rising fast"],
        ["12", "2 h ago", "告警：服务器负载过高", "CPU 负载 15 分钟平均值超过 8.0"],
        ["100", "just now", "ok", ""],
    ]

    private func stripped(_ line: String) -> String {
        var output = ""
        var isInEscape = false
        for scalar in line.unicodeScalars {
            if scalar == "\u{1B}" {
                isInEscape = true
            } else if isInEscape {
                if scalar == "m" { isInEscape = false }
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    @Test("columns align left or right, two spaces apart, with no trailing spaces")
    func alignment() {
        let table = TextTable(columns: [TextTable.Column("ID", alignment: .right), TextTable.Column("TITLE")], useColor: false)
        let lines = table.render(rows: [["1", "a"], ["100", "bbb"], ["5", ""]], styles: [], maxWidth: nil)
        #expect(lines == [" ID  TITLE", "  1  a", "100  bbb", "  5"])
    }

    @Test("without a width nothing is cut")
    func noFitting() {
        let lines = TextTable(columns: columns, useColor: false).render(rows: rows, styles: [], maxWidth: nil)
        #expect(lines.count == 4)
        #expect(lines[1].hasSuffix("The /var partition is at 93% and rising fast"))
        #expect(!lines.contains { $0.contains("…") })
    }

    @Test("fitted to a width, every line fits and only flexible columns are cut", arguments: [40, 50, 60, 80, 200])
    func fitting(maxWidth: Int) {
        let lines = TextTable(columns: columns, useColor: false).render(rows: rows, styles: [], maxWidth: maxWidth)
        for line in lines {
            #expect(DisplayWidth.of(line) <= maxWidth, "\(line)")
            #expect(!line.hasSuffix(" "))
        }
        #expect(lines[1].hasPrefix("  7  3 min ago  "))
        #expect(lines[3].hasPrefix("100  just now   ok"))
    }

    @Test("a flexible column narrower than its share keeps its width; the rest goes to the others")
    func sharing() {
        let table = TextTable(columns: [
            TextTable.Column("A"), TextTable.Column("T", isFlexible: true), TextTable.Column("B", isFlexible: true),
        ], useColor: false)
        #expect(table.fittedWidths([5, 6, 50], maxWidth: 30) == [5, 6, 15])
        #expect(table.fittedWidths([5, 40, 50], maxWidth: 30) == [5, 11, 10])
        #expect(table.fittedWidths([5, 6, 10], maxWidth: 30) == [5, 6, 10])
        #expect(table.fittedWidths([5, 40, 50], maxWidth: nil) == [5, 40, 50])
    }

    @Test("when even the minimums do not fit, flexible columns get 8 and lines run over")
    func minimums() {
        let table = TextTable(columns: [
            TextTable.Column("FIXED"), TextTable.Column("T", isFlexible: true), TextTable.Column("B", isFlexible: true),
        ], useColor: false)
        #expect(table.fittedWidths([20, 30, 5], maxWidth: 20) == [20, 8, 5])
        let lines = table.render(rows: [[String(repeating: "f", count: 20), String(repeating: "t", count: 30), "bb"]],
            styles: [], maxWidth: 20)
        #expect(lines[1] == String(repeating: "f", count: 20) + "  ttttttt…  bb")
    }

    @Test("whenever the minimums fit, the fitted widths fit exactly within the width")
    func fittingInvariant() {
        let table = TextTable(columns: columns, useColor: false)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let natural = (0..<4).map { _ in Int.random(in: 0...60, using: &random) }
            let maxWidth = Int.random(in: 20...150, using: &random)
            let widths = table.fittedWidths(natural, maxWidth: maxWidth)
            let minimum = natural[0] + natural[1] + 6 + min(natural[2], 8) + min(natural[3], 8)
            if minimum <= maxWidth {
                #expect(widths.reduce(6, +) <= maxWidth, "\(natural) in \(maxWidth)")
            }
            #expect(widths[0] == natural[0] && widths[1] == natural[1])
            #expect(zip(widths, natural).allSatisfy { $0 <= $1 })
        }
    }

    @Test("CJK cells are padded by display width, so the next column lines up")
    func cjkAlignment() {
        let table = TextTable(columns: [TextTable.Column("TITLE"), TextTable.Column("X")], useColor: false)
        let lines = table.render(rows: [["告警", "1"], ["abc", "2"], ["服务器x", "3"]], styles: [], maxWidth: nil)
        let offsets = lines.map { DisplayWidth.of($0.dropLast()) }
        #expect(Set(offsets).count == 1, "\(lines)")
        #expect(lines[1] == "告警     1")
    }

    @Test("colour codes appear only with useColor, and never count toward widths")
    func colour() {
        let styles: [TextTable.RowStyle] = [.emphasized, .plain, .dimmed]
        let plain = TextTable(columns: columns, useColor: false).render(rows: rows, styles: styles, maxWidth: 60)
        #expect(!plain.joined().contains("\u{1B}"))
        let coloured = TextTable(columns: columns, useColor: true).render(rows: rows, styles: styles, maxWidth: 60)
        #expect(coloured[0].hasPrefix("\u{1B}[1m") && coloured[0].hasSuffix("\u{1B}[0m"))
        #expect(coloured[1].hasPrefix("\u{1B}[1m") && coloured[1].hasSuffix("\u{1B}[0m"))
        #expect(!coloured[2].contains("\u{1B}"))
        #expect(coloured[3].hasPrefix("\u{1B}[2m") && coloured[3].hasSuffix("\u{1B}[0m"))
        #expect(coloured.map(stripped) == plain)
    }

    @Test("cells are made single-line, so data cannot inject newlines or escapes")
    func cellsAreSanitised() {
        let table = TextTable(columns: [TextTable.Column("A"), TextTable.Column("B")], useColor: false)
        let lines = table.render(rows: [["x\ny", "\u{1B}[2Jboom"]], styles: [], maxWidth: nil)
        #expect(lines == ["A    B", "x y   [2Jboom"])
    }

    @Test("headerLine and line print rows one at a time like render does")
    func streaming() {
        let table = TextTable(columns: columns, useColor: false)
        let widths = table.fittedWidths(table.naturalWidths(of: rows), maxWidth: 60)
        let lines = table.render(rows: rows, styles: [], maxWidth: 60)
        #expect(table.headerLine(widths: widths) == lines[0])
        #expect(rows.map { table.line($0, style: .plain, widths: widths) } == Array(lines.dropFirst()))
    }
}
