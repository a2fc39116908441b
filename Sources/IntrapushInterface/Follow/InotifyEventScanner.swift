// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Reads what `read(2)` returned from an inotify descriptor: records of `struct inotify_event`
/// (wd, mask, cookie, len) each followed by `len` bytes of NUL-padded name. Pure, so it is fuzzed;
/// a record claiming more name than was read ends the scan instead of reading past the buffer.
package enum InotifyEventScanner {
    static let headerSize = MemoryLayout<inotify_event>.size  // 16

    /// Whether a record names one of `names`, or says the kernel's queue overflowed (events were
    /// lost, and one of them may have been about `names`).
    package static func concerns(_ names: Set<String>, in bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + headerSize <= bytes.count {
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
            let nameStart = offset + headerSize
            let nameLength = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            guard nameLength <= bytes.count - nameStart else { return false }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + nameLength)]).prefix { $0 != 0 }
            if names.contains(String(decoding: name, as: UTF8.self)) { return true }
            offset = nameStart + nameLength
        }
        return false
    }
}
