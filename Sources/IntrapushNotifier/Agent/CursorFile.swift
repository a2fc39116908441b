#if canImport(Glibc)
import Glibc
#endif

/// The cursor's file, `notifier-cursor` in the state directory: written whole to a temporary file
/// and renamed over, so that a crash leaves the old cursor or the new one, never half of one.
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

    /// Writes the cursor; the problem in words when it could not.
    func save(_ cursor: NotifierCursor) -> String? {
        guard makeDirectory() else { return "cannot create \(directory): \(String(cString: strerror(errno)))" }
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        let bytes = Array(cursor.text(database: database).utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return "cannot write \(path): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// `mkdir -p`, private to the user: the file says which notifications they have seen.
    private func makeDirectory() -> Bool {
        var partial = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
