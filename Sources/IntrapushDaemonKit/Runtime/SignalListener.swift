// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import CLinux
import NIOCore
import NIOPosix

/// SIGTERM, SIGINT and SIGHUP, read from a signalfd on the event loop.
///
/// Not `UnixSignalsSequence`: its DispatchSource starts a libdispatch worker thread, and the
/// first worker arms libdispatch's pool monitor, a timer that then wakes the idle daemon every
/// second for as long as it runs. `blockSignals()` runs first thing in `main`, before any thread
/// exists, so every thread inherits the mask and a signal waits in the signalfd until it is
/// read: one arriving before the daemon is ready is handled, never fatal. Hooks start with an
/// empty mask (`HookProcess.spawnChild`).
enum SignalListener {
    static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the handled signals in the calling thread and all threads it starts later.
    static func blockSignals() {
        var mask = signalSet()
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// Reads the signals on `eventLoop` and calls `received` there with each one, until the
    /// returned channel closes.
    static func listen(on eventLoop: any EventLoop, _ received: @escaping @Sendable (Int32) -> Void) async throws -> any Channel {
        var mask = signalSet()
        let descriptor = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "signalfd") }
        return try await NIOPipeBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SignalRecordHandler(received: received))
                }
            }
            .takingOwnershipOfDescriptor(input: descriptor)
            .get()
    }

    private static func signalSet() -> sigset_t {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in handled { sigaddset(&mask, signal) }
        return mask
    }
}

/// Each `signalfd_siginfo` is 128 bytes and starts with the signal's number.
private final class SignalRecordHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let received: @Sendable (Int32) -> Void
    private var pending = ByteBuffer()

    init(received: @escaping @Sendable (Int32) -> Void) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        let size = MemoryLayout<signalfd_siginfo>.size
        while pending.readableBytes >= size, let signal = pending.getInteger(at: pending.readerIndex, endianness: .host, as: UInt32.self) {
            pending.moveReaderIndex(forwardBy: size)
            received(Int32(signal))
        }
        pending.discardReadBytes()
    }
}
