// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a dictionary, without Foundation.
package enum ProcessEnvironment {
    package static var current: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let assignment = String(cString: pointer)
            if let equals = assignment.firstIndex(of: "=") {
                result[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
