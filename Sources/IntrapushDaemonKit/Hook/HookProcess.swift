// SPDX-License-Identifier: Apache-2.0

import CLinux
#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration

/// One running hook: the child (leader of its own process group), a pidfd that becomes readable
/// when it exits, and the read end of its stderr. Owned by the hook thread alone.
///
/// The child gets: stdin a sealed-in-memory file holding the notification (a memfd, so that a
/// hook that never reads stdin cannot block us and a hook that reads it gets EOF); stdout
/// `/dev/null`; stderr a pipe of which we keep the first bytes for the log; no other descriptor
/// (closefrom 3); default signal dispositions and an empty signal mask, whatever the daemon's.
final class HookProcess {
    let notificationID: Int64
    let pid: pid_t
    let startedAt: ContinuousClock.Instant
    /// -1 when the kernel has no pidfd_open (before 5.3): the thread then polls with waitpid.
    private(set) var pidDescriptor: Int32
    /// -1 once closed.
    private(set) var standardErrorDescriptor: Int32
    private(set) var standardErrorExcerpt: [UInt8] = []
    private let standardErrorLimit: Int

    /// Why we signalled the group, if we did.
    var termination: HookTermination?
    /// When SIGKILL is due, once SIGTERM went out.
    var killAt: ContinuousClock.Instant?
    var hasBeenKilled = false

    private init(notificationID: Int64, pid: pid_t, startedAt: ContinuousClock.Instant, standardError: Int32, limit: Int) {
        self.notificationID = notificationID
        self.pid = pid
        self.startedAt = startedAt
        self.pidDescriptor = intrapush_pidfd_open(pid)
        self.standardErrorDescriptor = standardError
        self.standardErrorLimit = limit
    }

    deinit {
        if pidDescriptor >= 0 { close(pidDescriptor) }
        if standardErrorDescriptor >= 0 { close(standardErrorDescriptor) }
    }

    /// Starts `command` with `environment`, `input` on stdin; never runs a shell.
    static func spawn(
        _ command: HookCommandLine, environment: [String], input: [UInt8], notificationID: Int64,
        standardErrorLimit: Int, at now: ContinuousClock.Instant
    ) throws(HookSystemError) -> HookProcess {
        let standardInput = try makeStandardInput(input)
        defer { close(standardInput) }
        var errorPipe: [Int32] = [-1, -1]
        guard pipe2(&errorPipe, O_CLOEXEC) == 0 else { throw HookSystemError("create a pipe for the hook's stderr") }
        defer { close(errorPipe[1]) }
        // Only our end is non-blocking: the flag belongs to the open file, and the child's
        // writes must block as usual when the pipe is full.
        _ = fcntl(errorPipe[0], F_SETFL, O_NONBLOCK)

        let pid: pid_t
        do {
            pid = try spawnChild(command, environment: environment, standardInput: standardInput, standardError: errorPipe[1])
        } catch {
            close(errorPipe[0])
            throw error
        }
        return HookProcess(
            notificationID: notificationID, pid: pid, startedAt: now, standardError: errorPipe[0], limit: standardErrorLimit
        )
    }

    /// Sends `signal` to the whole process group, so that the hook's own children get it too.
    func signalGroup(_ signal: Int32) {
        _ = kill(-pid, signal)
    }

    /// Reads what stderr holds now, keeping the first `standardErrorLimit` bytes and discarding
    /// the rest so that the child never blocks on a full pipe; closes it at EOF.
    func readStandardError() {
        guard standardErrorDescriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(standardErrorDescriptor, &buffer, buffer.count)
            if count > 0 {
                let room = standardErrorLimit - standardErrorExcerpt.count
                if room > 0 { standardErrorExcerpt += buffer.prefix(min(room, count)) }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count == 0 { closeStandardError() }
            return  // EAGAIN: nothing more for now
        }
    }

    /// Stops listening to stderr even if a grandchild still holds it open.
    func closeStandardError() {
        guard standardErrorDescriptor >= 0 else { return }
        close(standardErrorDescriptor)
        standardErrorDescriptor = -1
    }

    /// Whether the child has exited, without reaping it: while it is a zombie its pid, and so
    /// its process group id, cannot be reused, and the group can still be signalled safely.
    var hasExited: Bool {
        if pidDescriptor >= 0 {
            var descriptor = pollfd(fd: pidDescriptor, events: Int16(POLLIN), revents: 0)
            return poll(&descriptor, 1, 0) == 1
        }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return true }
        return info._sifields._sigchld.si_pid == pid
    }

    /// The raw wait status once the child has exited, reaping it; `nil` while it runs.
    ///
    /// Only `waitpid(pid)` on our own child: never a wildcard wait, which could steal the
    /// children of other parts of the process.
    func reapIfExited() -> HookExitStatus? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return HookExitStatus(waitStatus: status) }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            // ECHILD: reaped behind our back (SIGCHLD set to SIG_IGN); the status is lost.
            return .unknown
        }
    }
}

/// Why the hook thread signalled a hook's process group.
enum HookTermination {
    case timedOut
    case shuttingDown
}
