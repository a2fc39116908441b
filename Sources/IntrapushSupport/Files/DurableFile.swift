// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Files and directories that survive a power cut once made: what a program reports as written
/// (a cursor saved, a directory created) must not vanish with the page cache. A new name is
/// durable only once its directory is synced (POSIX leaves it to the file system; ext4 with
/// `data=ordered` and xfs need it), and renamed-over content only once the file itself is.
package enum DurableFile {
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// What could not be done, to what: "cannot create /var/lib/intrapush".
        package var action: String
        package var code: Int32

        package init(action: String, code: Int32) {
            self.action = action
            self.code = code
        }

        package var description: String { "\(action): \(String(cString: strerror(code)))" }
    }

    /// `mkdir -p` giving each directory it creates `mode` (exactly: not masked by the umask), and
    /// syncing the parent of each, so that the whole path exists after a power cut.
    package static func makeDirectories(_ path: String, mode: mode_t) throws(Failure) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            let parent = partial.isEmpty ? "/" : partial
            partial += "/" + component
            if mkdir(partial, mode) == 0 {
                chmod(partial, mode)
                try syncDirectory(parent)
            } else if errno != EEXIST {
                throw Failure(action: "cannot create \(partial)", code: errno)
            }
        }
    }

    /// Makes the names in directory `path` durable (new, removed or renamed entries).
    package static func syncDirectory(_ path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(action: "cannot open \(path)", code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(action: "cannot sync \(path)", code: errno) }
    }

    /// Replaces `path` with `bytes`, so that after a crash or a power cut it holds the old
    /// content or the new one, whole: a temporary beside it, written and synced, renamed over,
    /// then the directory synced. Never follows a link at `path`'s temporary.
    package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(Failure) {
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw Failure(action: "cannot write \(temporary)", code: errno) }
        var failure: Failure?
        var offset = 0
        while offset < bytes.count, failure == nil {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno != EINTR {
                failure = Failure(action: "cannot write \(temporary)", code: errno)
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Failure(action: "cannot sync \(temporary)", code: errno) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = Failure(action: "cannot replace \(path)", code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        try syncDirectory(directory(of: path))
    }

    /// The directory a path names its file in ("." for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
