// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A fresh directory for one test, removed with everything in it when the test lets go of it.
/// The one way the tests make a temporary place (`mkdtemp`, so two tests never share one).
package final class TemporaryDirectory: @unchecked Sendable {
    package let path: String

    /// `purpose` goes into the name, so that a directory left by a crashed run says whose it was.
    package init(_ purpose: String = "test") throws {
        var template = Array((NSTemporaryDirectory() + "intrapush-\(purpose)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory; the tests' database by default.
    package func file(_ name: String = "notifications.sqlite3") -> String { path + "/" + name }

    @discardableResult
    package func write(_ name: String, _ contents: String) throws -> String {
        let target = file(name)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// The text of `name`, or "" when it cannot be read.
    package func read(_ name: String) -> String {
        (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
    }

    /// Makes `name` (and what leads to it) inside the directory; returns its path.
    @discardableResult
    package func makeDirectory(_ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: file(name), withIntermediateDirectories: true)
        return file(name)
    }
}
