// SPDX-License-Identifier: Apache-2.0

/// A value that must never be shown: its description, debug description and mirror all read `***`.
///
/// Only code that puts the token on the wire reads `value`.
package struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    package let value: String

    package init(_ value: String) {
        self.value = value
    }

    package var description: String { "***" }
    package var debugDescription: String { "***" }
    // Without this, `dump()` and `String(reflecting:)` of an enclosing value would walk into `value`.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
