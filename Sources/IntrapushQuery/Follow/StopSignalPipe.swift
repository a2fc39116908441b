#if canImport(Glibc)
import Glibc
#endif

/// The self-pipe trick for SIGINT and SIGTERM: the handler writes one byte (write(2) is
/// async-signal-safe) and the poll loop sees the pipe become readable. Unlike a flag checked
/// before poll(), no signal can slip in between the check and the wait.
final class StopSignalPipe: Sendable {
    let readDescriptor: Int32

    private init(readDescriptor: Int32) {
        self.readDescriptor = readDescriptor
    }

    // Written once before the handlers are installed, read only by the handler.
    nonisolated(unsafe) private static var writeDescriptor: Int32 = -1
    nonisolated(unsafe) private static var installed: StopSignalPipe?

    /// Installs the handlers once per process and returns the pipe.
    static func install() -> StopSignalPipe {
        if let installed { return installed }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            // Without a pipe the default actions stay: the signals still end the process.
            return StopSignalPipe(readDescriptor: -1)
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
        writeDescriptor = descriptors[1]
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
        let pipe = StopSignalPipe(readDescriptor: descriptors[0])
        installed = pipe
        return pipe
    }
}
