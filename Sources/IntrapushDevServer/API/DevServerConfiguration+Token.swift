// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DevServerConfiguration {
    /// Reads a token file as the daemon does: its first line, trailing white space trimmed.
    package static func readToken(fromFile path: String) throws -> String {
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(filePath: path))
        } catch {
            let reason =
                if !FileManager.default.fileExists(atPath: path) {
                    "the file does not exist"
                } else if !FileManager.default.isReadableFile(atPath: path) {
                    "permission denied"
                } else {
                    "\(error)"
                }
            throw DevServerError.unreadableTokenFile(path: path, reason: reason)
        }
        let firstLine = String(decoding: contents, as: UTF8.self)
            .split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let token = String(firstLine.reversed().drop(while: \.isWhitespace).reversed())
        guard !token.isEmpty else {
            throw DevServerError.unreadableTokenFile(path: path, reason: "its first line is empty")
        }
        return token
    }
}
