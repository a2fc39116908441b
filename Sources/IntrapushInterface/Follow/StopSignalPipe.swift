// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// The self-pipe trick for SIGINT and SIGTERM: the handler writes one byte (write(2) is
/// async-signal-safe) and the poll loop sees the pipe become readable. Unlike a flag checked
/// before poll(), no signal can slip in between the check and the wait.
package final class StopSignalPipe: Sendable {
    private let pipe: WakeupPipe?
    /// In the poll set; -1 (skipped by poll) when no pipe could be made.
    package var readDescriptor: Int32 { pipe?.readDescriptor ?? -1 }

    private init(pipe: WakeupPipe?) {
        self.pipe = pipe
    }

    // Written once before the handlers are installed, read only by the handler.
    nonisolated(unsafe) private static var writeDescriptor: Int32 = -1
    nonisolated(unsafe) private static var installed: StopSignalPipe?

    /// Installs the handlers once per process and returns the pipe.
    package static func install() -> StopSignalPipe {
        if let installed { return installed }
        guard let pipe = try? WakeupPipe() else {
            // Without a pipe the default actions stay: the signals still end the process.
            return StopSignalPipe(pipe: nil)
        }
        writeDescriptor = pipe.writeDescriptor
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(StopSignalPipe.writeDescriptor, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with them blocked (posix_spawn passes its mask on).
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &stopSignals, nil)
        let stop = StopSignalPipe(pipe: pipe)
        installed = stop
        return stop
    }
}
