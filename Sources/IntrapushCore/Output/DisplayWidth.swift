/// Terminal columns taken by text, computed per Character (grapheme cluster) from tables in this
/// module rather than `wcwidth`, which in the C locale gets Chinese and emoji wrong.
///
/// A cluster is 0 columns when it starts with a combining, zero-width or format character (or a
/// control, which `singleLine` removes first anyway), 2 when it is East Asian Wide or Fullwidth,
/// an emoji presentation sequence (with U+FE0F) or a flag, and 1 otherwise.
public enum DisplayWidth {
    public static func of(_ text: some StringProtocol) -> Int {
        var width = 0
        for byte in text.utf8 {
            guard byte < 0x80 else { return clusterWidths(text) }
            if byte >= 0x20 && byte != 0x7F { width += 1 }
        }
        return width
    }

    /// At most `width` columns: the text itself when it fits, else as many whole characters as fit
    /// before a final "…" (trailing spaces before it dropped). A wide character that would overflow
    /// is left out, so the result can be a column short; nothing is padded.
    public static func truncate(_ text: String, toWidth width: Int) -> String {
        truncate(text, toWidth: width, knownWidth: of(text))
    }

    /// One line for a table cell: newlines, tabs and other control characters (C0, DEL, C1, and the
    /// Unicode line and paragraph separators) become a single space per run, so ESC never reaches
    /// the terminal.
    public static func singleLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }) else {
            return text
        }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        let scalars = text.unicodeScalars
        var runStart = scalars.startIndex
        var index = scalars.startIndex
        var isInControlRun = false
        while index != scalars.endIndex {
            let next = scalars.index(after: index)
            if isLineBreaking(scalars[index]) {
                if !isInControlRun {
                    output.append(contentsOf: Substring(scalars[runStart..<index]))
                    output.append(" ")
                    isInControlRun = true
                }
                runStart = next
            } else {
                isInControlRun = false
            }
            index = next
        }
        output.append(contentsOf: Substring(scalars[runStart...]))
        return output
    }

    static func truncate(_ text: String, toWidth width: Int, knownWidth: Int) -> String {
        guard knownWidth > width else { return text }
        guard width > 0 else { return "" }
        let budget = width - 1
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += self.width(of: text[index])
            if used > budget { break }
            end = text.index(after: index)
        }
        var kept = text[..<end]
        while kept.last == " " { kept = kept.dropLast() }
        return kept + "…"
    }

    static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        let first = scalars.first!
        let value = first.value
        if value < 0x7F && value >= 0x20 {
            // A keycap ("1\u{FE0F}\u{20E3}") is an emoji presentation sequence on an ASCII base.
            return scalars.count > 1 && scalars.contains(where: { $0.value == 0xFE0F }) ? 2 : 1
        }
        if value < 0xA0 { return 0 }
        if isWide(value) { return 2 }
        if scalars.count > 1 {
            if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
            // Two regional indicators make a flag.
            if (0x1F1E6...0x1F1FF).contains(value) { return 2 }
        }
        return isZeroWidth(first) ? 0 : 1
    }

    private static func clusterWidths(_ text: some StringProtocol) -> Int {
        var width = 0
        for character in text { width += self.width(of: character) }
        return width
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD: return false  // a soft hyphen is drawn, one column, by terminals
        case 0x1160...0x11FF, 0xD7B0...0xD7FF: return true  // Hangul vowels and finals join a syllable
        default:
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: return true
            default: return false
            }
        }
    }

    private static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }
}
