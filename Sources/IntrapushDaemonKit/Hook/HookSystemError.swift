// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// A system call the hook machinery needed failed: which one, and `errno`'s text.
struct HookSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done, as in "cannot \(operation)".
    let operation: String
    let code: Int32

    init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    var description: String {
        "cannot \(operation): \(String(cString: strerror(code)))"
    }
}
