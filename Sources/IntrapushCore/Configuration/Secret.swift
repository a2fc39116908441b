/// A value that must never be shown: its description, debug description and mirror all read `***`.
///
/// Only code that puts the token on the wire reads `value`.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "***" }
    public var debugDescription: String { "***" }
    // Without this, `dump()` and `String(reflecting:)` of an enclosing value would walk into `value`.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
