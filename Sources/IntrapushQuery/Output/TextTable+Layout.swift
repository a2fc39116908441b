// SPDX-License-Identifier: Apache-2.0

extension TextTable {
    /// Each column's widest cell or header, in display columns, before any fitting.
    package func naturalWidths(of rows: [[String]]) -> [Int] {
        var natural = columns.map { DisplayWidth.of(DisplayWidth.singleLine($0.header)) }
        for row in rows {
            for (column, cell) in zip(natural.indices, row) {
                natural[column] = max(natural[column], DisplayWidth.of(DisplayWidth.singleLine(cell)))
            }
        }
        return natural
    }

    /// Column widths that fit `maxWidth` (see `render`); `natural` unchanged when it already fits
    /// or `maxWidth` is nil. Use with `headerLine` and `line` to print rows as they come.
    package func fittedWidths(_ natural: [Int], maxWidth: Int?) -> [Int] {
        let separators = 2 * max(columns.count - 1, 0)
        guard let maxWidth, natural.reduce(separators, +) > maxWidth else { return natural }
        let flexible = columns.indices.filter { columns[$0].isFlexible }
        var widths = natural
        let fixedTotal = columns.indices.filter { !columns[$0].isFlexible }.reduce(separators) { $0 + natural[$1] }
        var available = maxWidth - fixedTotal
        let minimums = flexible.map { min(natural[$0], Self.minimumFlexibleWidth) }
        guard available >= minimums.reduce(0, +) else {
            for (column, minimum) in zip(flexible, minimums) { widths[column] = minimum }
            return widths
        }
        // Narrowest first: a column that needs less than an equal share keeps its natural width.
        var remaining = flexible.sorted { natural[$0] < natural[$1] }
        while let narrowest = remaining.first, natural[narrowest] <= available / remaining.count {
            available -= natural[narrowest]
            remaining.removeFirst()
        }
        // The rest are all wider than their share; the leftmost get the remainder's extra columns.
        for (position, column) in remaining.sorted().enumerated() {
            widths[column] = available / remaining.count + (position < available % remaining.count ? 1 : 0)
        }
        return widths
    }

    /// The header line for these widths.
    package func headerLine(widths: [Int]) -> String {
        makeLine(widths: widths, style: nil) { column in
            let header = DisplayWidth.singleLine(columns[column].header)
            return (header, DisplayWidth.of(header))
        }
    }

    /// One row for these widths; missing cells are empty.
    package func line(_ row: [String], style: RowStyle, widths: [Int]) -> String {
        makeLine(widths: widths, style: style) { column in
            let cell = column < row.count ? DisplayWidth.singleLine(row[column]) : ""
            return (cell, DisplayWidth.of(cell))
        }
    }

    /// Builds a line from each column's single-line text and its display width; style nil is the header.
    func makeLine(widths: [Int], style: RowStyle?, cell: (Int) -> (text: String, width: Int)) -> String {
        var line = ""
        line.reserveCapacity(widths.reduce(2 * widths.count + 8, +))
        let escape = useColor ? Self.escape(for: style) : nil
        if let escape { line.append(escape) }
        // Spaces are written only when text follows them, so lines never end in padding.
        var pendingSpaces = 0
        for column in columns.indices {
            let width = column < widths.count ? widths[column] : 0
            var (text, textWidth) = cell(column)
            if textWidth > width {
                text = DisplayWidth.truncate(text, toWidth: width, knownWidth: textWidth)
                textWidth = DisplayWidth.of(text)
            }
            if column > 0 { pendingSpaces += 2 }
            let padding = max(width - textWidth, 0)
            if columns[column].alignment == .right { pendingSpaces += padding }
            if !text.isEmpty {
                Self.appendSpaces(pendingSpaces, to: &line)
                pendingSpaces = 0
                line.append(text)
            }
            if columns[column].alignment == .left { pendingSpaces += padding }
        }
        while line.hasSuffix(" ") { line.removeLast() }
        if escape != nil { line.append("\u{1B}[0m") }
        return line
    }

    private static func escape(for style: RowStyle?) -> String? {
        switch style {
        case nil, .emphasized: "\u{1B}[1m"
        case .dimmed: "\u{1B}[2m"
        case .plain: nil
        }
    }

    private static let spaces = String(repeating: " ", count: 64)

    private static func appendSpaces(_ count: Int, to line: inout String) {
        var remaining = count
        while remaining > 0 {
            let chunk = min(remaining, spaces.utf8.count)
            line.append(contentsOf: spaces.prefix(chunk))
            remaining -= chunk
        }
    }
}
