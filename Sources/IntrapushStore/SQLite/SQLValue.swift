// SPDX-License-Identifier: Apache-2.0

/// A value bound to a placeholder of a query built at run time.
package enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
}

extension Statement {
    /// Binds `values` to the placeholders 1, 2, … in order.
    package func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            switch value {
            case .integer(let number): try bind(number, at: offset + 1)
            case .text(let text): try bind(text, at: offset + 1)
            }
        }
    }
}
