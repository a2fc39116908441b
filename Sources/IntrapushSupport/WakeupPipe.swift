// SPDX-License-Identifier: Apache-2.0

import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Wakes a thread out of poll(2) from any other thread or a signal handler: the hook thread, the
/// netlink thread, `intrapush follow` on SIGINT/SIGTERM.
/// Both ends are non-blocking and close-on-exec; they close when the last holder lets go, so a
/// late `wake()` never writes to a descriptor number reused by someone else.
package final class WakeupPipe: Sendable {
    /// pipe2(2) failed with `code` (errno).
    package struct CreationError: Error {
        package let code: Int32
    }

    /// Put in the poll set with `POLLIN`: readable once woken.
    package let readDescriptor: Int32
    /// For a signal handler, which may only write(2) one byte to it (async-signal-safe);
    /// everything else calls `wake()`.
    package let writeDescriptor: Int32

    package init() throws(CreationError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe2(&descriptors, O_CLOEXEC | O_NONBLOCK) == 0 else {
            throw CreationError(code: errno)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    package func wake() {
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds a wake-up: nothing is lost.
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe, so that the next poll sleeps until the next `wake()`.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
