#if canImport(Glibc)
import Glibc
#endif

/// A system call the hook machinery needed failed: which one, and `errno`'s text.
package struct HookSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done, as in "cannot \(operation)".
    package let operation: String
    package let code: Int32

    init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    package var description: String {
        "cannot \(operation): \(String(cString: strerror(code)))"
    }
}
