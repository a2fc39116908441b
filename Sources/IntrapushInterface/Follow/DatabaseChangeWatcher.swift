// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Waits, without polling, until the database may have changed, a stop signal arrives, or the
/// reader of our standard output goes away: the heart of `intrapush follow` and of the desktop
/// agent, which adds its bus connection to the same poll.
///
/// Watches the database's DIRECTORY with inotify: the WAL file that the daemon appends to is
/// deleted and created again as connections come and go, so a watch on the file itself would
/// go deaf. Standard output is in the poll set too: a pipe whose reader has exited reports
/// POLLERR, so `intrapush follow | head -1` ends without waiting for another notification.
/// When inotify is unavailable (no instances left, say) it falls back to waking every 250 ms.
package final class DatabaseChangeWatcher {
    package enum Wake: Sendable, Equatable {
        /// The database or its WAL was written (or created, or replaced).
        case databaseChanged
        /// The timeout passed with nothing to report.
        case timedOut
        /// SIGINT or SIGTERM.
        case stopRequested
        /// Standard output is a pipe whose reader has gone.
        case outputClosed
        /// The caller's own descriptor is ready.
        case descriptorReady
    }

    private var inotify: Int32
    private let directory: String
    /// The watch on `directory`, or on its nearest existing ancestor until it exists.
    private var currentWatch: Int32?
    private var isWatchingDirectory = false
    private let watchedNames: Set<String>
    private let stopSignals: StopSignalPipe
    private let outputDescriptor: Int32
    /// Room for 64 events with their names, reused by every wake.
    private var eventBuffer = [UInt8](repeating: 0, count: 64 * (MemoryLayout<inotify_event>.size + 256))
    /// Used when inotify could not be set up.
    static let fallbackInterval: Int32 = 250

    /// - Parameters:
    ///   - databasePath: the file `follow` reads.
    ///   - outputDescriptor: watched for the reader's end of a pipe closing; -1 for none.
    package init(databasePath: String, outputDescriptor: Int32 = 1) {
        let (directory, name) = Self.split(databasePath)
        self.directory = directory
        watchedNames = [name, name + "-wal"]
        stopSignals = StopSignalPipe.install()
        self.outputDescriptor = outputDescriptor
        var descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        inotify = descriptor
        if descriptor >= 0, !armWatch() {
            close(descriptor)
            descriptor = -1
        }
        inotify = descriptor
    }

    /// Watches the database's directory; while it does not exist yet (a daemon that never
    /// started makes it), the nearest ancestor that does, for its creation. `false` when not
    /// even `/` can be watched.
    private func armWatch() -> Bool {
        var candidate = directory
        while true {
            let isTarget = candidate == directory
            let mask = isTarget ? UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) : UInt32(IN_CREATE | IN_MOVED_TO)
            let watch = inotify_add_watch(inotify, candidate, mask)
            if watch >= 0 {
                if let current = currentWatch, current != watch { inotify_rm_watch(inotify, current) }
                currentWatch = watch
                isWatchingDirectory = isTarget
                return true
            }
            guard errno == ENOENT || errno == ENOTDIR, candidate != "/" else { return false }
            candidate = Self.split(candidate).directory
        }
    }

    deinit {
        if inotify >= 0 { close(inotify) }
    }

    /// `true` when changes are noticed through inotify, `false` when falling back to a timer.
    package var isUsingInotify: Bool { inotify >= 0 }

    /// Blocks until something happens or `timeoutMilliseconds` (nil: no limit) passes.
    ///
    /// - Parameter other: a descriptor of the caller's, and the events to wait for on it.
    package func wait(timeoutMilliseconds: Int32?, other: (descriptor: Int32, events: Int16)? = nil) -> Wake {
        var timeout = timeoutMilliseconds ?? -1
        if inotify < 0 { timeout = timeout < 0 ? Self.fallbackInterval : min(timeout, Self.fallbackInterval) }
        var descriptors = [
            pollfd(fd: stopSignals.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: outputDescriptor, events: 0, revents: 0),
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: other?.descriptor ?? -1, events: other?.events ?? 0, revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return .timedOut }
            if descriptors[0].revents != 0 { return .stopRequested }
            if descriptors[1].revents & Int16(POLLERR | POLLHUP) != 0 { return .outputClosed }
            if descriptors[2].revents != 0, drainEvents() { return .databaseChanged }
            if descriptors[3].revents != 0 { return .descriptorReady }
        }
    }

    /// Reads every pending event; `true` when one concerns the database or its WAL (or when the
    /// directory, awaited until now, has appeared: the database may be in it already).
    private func drainEvents() -> Bool {
        guard isWatchingDirectory else {
            discardEvents()
            return armWatch() && isWatchingDirectory
        }
        return drainDirectoryEvents()
    }

    private func discardEvents() {
        while eventBuffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func drainDirectoryEvents() -> Bool {
        var relevant = false
        while true {
            let concerns = eventBuffer.withUnsafeMutableBytes { buffer -> Bool? in
                let count = read(inotify, buffer.baseAddress, buffer.count)
                guard count > 0 else { return nil }
                return InotifyEventScanner.concerns(watchedNames, in: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            guard let concerns else { return relevant }
            relevant = relevant || concerns
        }
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
