// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

import IntrapushSupport

/// The cursor's file, `notifier-cursor` in the state directory: replaced whole (`DurableFile`), so
/// that a crash or a power cut leaves the old cursor or the new one, never half of one or none.
struct CursorFile {
    let directory: String
    let database: String
    var path: String { directory + "/notifier-cursor" }

    init(directory: String, database: String) {
        self.directory = directory
        self.database = database
    }

    func load() -> NotifierCursor {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return NotifierCursor() }
        defer { close(descriptor) }
        // A cursor and the unsent marks fit easily; a larger file is not ours.
        var bytes = [UInt8](repeating: 0, count: 256 * 1024)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return NotifierCursor() }
        return NotifierCursor.parse(String(decoding: bytes[..<count], as: UTF8.self), database: database)
    }

    /// Writes the cursor, durably (a mark the agent accepted survives a power cut); the problem
    /// in words when it could not. The directory is private to the user: the file says which
    /// notifications they have seen.
    func save(_ cursor: NotifierCursor) -> String? {
        do {
            try DurableFile.makeDirectories(directory, mode: 0o700)
            try DurableFile.replace(path, with: Array(cursor.text(database: database).utf8), mode: 0o600)
            return nil
        } catch {
            return error.description
        }
    }
}
