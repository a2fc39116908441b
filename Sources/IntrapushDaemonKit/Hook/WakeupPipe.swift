import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Wakes the hook thread out of poll(2) from any thread. Both ends are non-blocking and
/// close-on-exec; they close when the last holder lets go, so a late `wake()` never writes to
/// a descriptor number reused by someone else.
final class WakeupPipe: Sendable {
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() throws(HookSystemError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe2(&descriptors, O_CLOEXEC | O_NONBLOCK) == 0 else {
            throw HookSystemError("create the hook wake-up pipe")
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    func wake() {
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds a wake-up: nothing is lost.
        _ = write(writeDescriptor, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
