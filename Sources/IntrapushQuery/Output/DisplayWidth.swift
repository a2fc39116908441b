// SPDX-License-Identifier: Apache-2.0

/// Terminal columns taken by text, computed per Character (grapheme cluster) from tables in this
/// module rather than `wcwidth`, which in the C locale gets Chinese and emoji wrong.
///
/// A cluster is 0 columns when it starts with a combining, zero-width or format character (or a
/// control, which `singleLine` removes first anyway), 2 when it is East Asian Wide or Fullwidth,
/// an emoji presentation sequence (with U+FE0F) or a flag, and 1 otherwise.
package enum DisplayWidth {
    /// Terminal columns of `text`.
    package static func of(_ text: some StringProtocol) -> Int {
        if let width = text.utf8.withContiguousStorageIfAvailable(asciiWidth), let width { return width }
        var width = 0
        for scalar in text.unicodeScalars {
            guard let scalarWidth = simpleWidth(scalar) else { return clusterWidths(text) }
            width += scalarWidth
        }
        return width
    }

    /// At most `width` columns: the text itself when it fits, else as many whole characters as fit
    /// before a final "…" (trailing spaces before it dropped). A wide character that would overflow
    /// is left out, so the result can be a column short; nothing is padded.
    package static func truncate(_ text: String, toWidth width: Int) -> String {
        truncate(text, toWidth: width, knownWidth: of(text))
    }

    /// One line for a table cell: newlines, tabs and other control characters (C0, DEL, C1, and the
    /// Unicode line and paragraph separators) become a single space per run, so ESC never reaches
    /// the terminal.
    package static func singleLine(_ text: String) -> String {
        var text = text
        // 0xC2 and 0xE2 lead the UTF-8 of C1 controls and of U+2028/U+2029; a false alarm only
        // costs the slow path.
        let mayHaveControls = text.withUTF8 { bytes in
            bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }
        }
        guard mayHaveControls else { return text }
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
        var kept = simplePrefix(of: text, fittingIn: width - 1) ?? clusterPrefix(of: text, fittingIn: width - 1)
        while kept.last == " " { kept = kept.dropLast() }
        return kept + "…"
    }

    /// The longest prefix of whole clusters within `budget` columns.
    private static func clusterPrefix(of text: String, fittingIn budget: Int) -> Substring {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += self.width(of: text[index])
            if used > budget { break }
            end = text.index(after: index)
        }
        return text[..<end]
    }

    /// `clusterPrefix` for text whose scalars are all their own clusters, or nil for other text.
    private static func simplePrefix(of text: String, fittingIn budget: Int) -> Substring? {
        let scalars = text.unicodeScalars
        var used = 0
        var index = scalars.startIndex
        while index != scalars.endIndex {
            guard let width = simpleWidth(scalars[index]) else { return nil }
            used += width
            if used > budget { break }
            index = scalars.index(after: index)
        }
        // The scalars up to `index` passed `simpleWidth`, so the cut is on a cluster boundary.
        return Substring(scalars[..<index])
    }

    /// The width of a scalar that always forms a cluster by itself and whose width is plain, or nil.
    ///
    /// Most scalars in titles are of this kind; anything that could join a cluster (marks, joiners,
    /// selectors, jamo, emoji, prepended marks) gets nil and sends the text to the exact path.
    @inline(__always)
    private static func simpleWidth(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0x20...0x7E, 0xA0...0x2FF: 1
        case 0x0D: nil  // CR LF is one cluster, which must not be cut in two
        case 0x00...0x1F, 0x7F...0x9F: 0
        case 0x3000...0x3029, 0x3041...0x3096, 0x30A0...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xAC00...0xD7A3, 0xFF01...0xFF60:
            2
        default: nil
        }
    }

    private static func asciiWidth(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var width = 0
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            if byte >= 0x20 && byte != 0x7F { width += 1 }
        }
        return width
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
