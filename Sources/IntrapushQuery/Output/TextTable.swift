// SPDX-License-Identifier: Apache-2.0

/// An aligned table for people: a header line, then one line per row, two spaces between columns,
/// fitted to the terminal by shrinking the flexible columns with "…".
///
/// Widths are display widths (`DisplayWidth`), so Chinese titles line up; escape codes for colour
/// never count toward them. Cells are made single-line first (`DisplayWidth.singleLine`), which
/// also keeps ESC from the data away from the terminal.
package struct TextTable {
    package enum Alignment: Sendable { case left, right }

    /// One column: its header and how its cells sit in it.
    package struct Column: Sendable {
        package var header: String
        package var alignment: Alignment
        /// Flexible columns shrink (with "…") to fit the width; fixed ones never do.
        package var isFlexible: Bool

        package init(_ header: String, alignment: Alignment = .left, isFlexible: Bool = false) {
            self.header = header
            self.alignment = alignment
            self.isFlexible = isFlexible
        }
    }

    /// How a row is drawn when colour is on: bold, faint, or neither.
    package enum RowStyle: Sendable { case plain, emphasized, dimmed }

    package var columns: [Column]
    package var useColor: Bool

    /// The fewest columns a flexible column is shrunk to (or its natural width when narrower).
    package static let minimumFlexibleWidth = 8

    package init(columns: [Column], useColor: Bool) {
        self.columns = columns
        self.useColor = useColor
    }

    /// Lines without trailing "\n", the header first; no line has trailing spaces.
    ///
    /// With `maxWidth` nil nothing is fitted. Otherwise, when the table is too wide, the flexible
    /// columns share what the fixed ones leave: one narrower than its share keeps its width and the
    /// rest goes to the others. When the fixed columns plus the minimum of each flexible one do not
    /// fit, flexible columns get that minimum and lines may exceed `maxWidth`. Rows missing cells
    /// get empty ones; `styles` shorter than `rows` means `.plain` for the rest.
    package func render(rows: [[String]], styles: [RowStyle], maxWidth: Int?) -> [String] {
        let count = columns.count
        // Flat arrays rather than one array per row: this runs on up to a million rows.
        var cells: [String] = []
        var cellWidths: [Int] = []
        cells.reserveCapacity(rows.count * count)
        cellWidths.reserveCapacity(rows.count * count)
        var natural = columns.map { DisplayWidth.of(DisplayWidth.singleLine($0.header)) }
        for row in rows {
            for column in 0..<count {
                let cell = column < row.count ? DisplayWidth.singleLine(row[column]) : ""
                let width = DisplayWidth.of(cell)
                natural[column] = max(natural[column], width)
                cells.append(cell)
                cellWidths.append(width)
            }
        }
        let widths = fittedWidths(natural, maxWidth: maxWidth)
        var lines: [String] = []
        lines.reserveCapacity(rows.count + 1)
        lines.append(headerLine(widths: widths))
        for rowIndex in rows.indices {
            let base = rowIndex * count
            let style = rowIndex < styles.count ? styles[rowIndex] : .plain
            lines.append(makeLine(widths: widths, style: style) { (cells[base + $0], cellWidths[base + $0]) })
        }
        return lines
    }
}
