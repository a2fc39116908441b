// SPDX-License-Identifier: Apache-2.0

/// Whom a push is addressed to: the `recipients` column, one user or group name per line.
///
/// NULL: to everyone. The empty text: the push named recipients, but none that could be a name,
/// so it is shown to no one in particular rather than to everyone (failing closed).
package enum Recipients {
    /// Names kept per push; a longer list is cut (the server meant a broadcast, not a leak).
    package static let maximumCount = 256
    /// A user or group name on Linux is at most 32 bytes; a little room for directory names.
    package static let maximumNameLength = 256

    /// The column's text for the names a push carried; every name that is not one (empty, too
    /// long, with a control character, or starting with `-` or a space) is left out.
    package static func column(for names: [String]) -> String {
        names.lazy.filter(isPlausibleName).prefix(maximumCount).joined(separator: "\n")
    }

    /// The names of a column's text; empty for `""`.
    package static func names(in column: String) -> [String] {
        column.isEmpty ? [] : column.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Whether a push with this `recipients` column is for a person with these names (their user
    /// name and the names of their groups).
    package static func isAddressed(_ column: String?, toAnyOf names: some Sequence<String>) -> Bool {
        guard let column else { return true }
        let addressed = Set(Self.names(in: column))
        return names.contains { addressed.contains($0) }
    }

    static func isPlausibleName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength,
            let first = name.unicodeScalars.first, first != "-", first != " "
        else { return false }
        return !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
