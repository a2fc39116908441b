// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import IntrapushInterface

/// The records an inotify read returns, as the kernel lays them out, and ones it never would.
@Suite("Reading inotify records")
struct InotifyEventScannerTests {
    static let names: Set<String> = ["db", "db-wal"]

    /// One record: wd, mask, cookie, the padded name's length, then the name padded with NULs.
    static func record(mask: UInt32 = UInt32(IN_MODIFY), name: String, padTo: Int = 16) -> [UInt8] {
        var name = Array(name.utf8)
        name += [UInt8](repeating: 0, count: padTo - name.count % padTo)
        return bytes(of: Int32(1)) + bytes(of: mask) + bytes(of: UInt32(0)) + bytes(of: UInt32(name.count)) + name
    }

    static func bytes<T>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    static func concerns(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { InotifyEventScanner.concerns(names, in: $0) }
    }

    @Test("a record naming the database or its WAL concerns it, whatever comes before; others do not")
    func names() {
        #expect(Self.concerns(Self.record(name: "other") + Self.record(name: "db-wal")))
        #expect(Self.concerns(Self.record(name: "db")))
        #expect(!Self.concerns(Self.record(name: "other") + Self.record(name: "db-journal")))
        #expect(!Self.concerns(Self.record(name: "dbx")), "whole names only")
    }

    @Test("a queue overflow concerns it: the lost events may have named it")
    func overflow() {
        let overflow = Self.bytes(of: Int32(-1)) + Self.bytes(of: UInt32(IN_Q_OVERFLOW)) + [UInt8](repeating: 0, count: 8)
        #expect(Self.concerns(Self.record(name: "other") + overflow))
    }

    @Test("a record claiming more name than was read ends the scan; a short tail is ignored")
    func truncated() {
        var claimsTooMuch = Self.record(name: "db")
        claimsTooMuch.replaceSubrange(12..<16, with: Self.bytes(of: UInt32(4096)))
        #expect(!Self.concerns(claimsTooMuch))
        #expect(!Self.concerns(Self.bytes(of: UInt32.max) + Self.bytes(of: UInt32(0)) + Self.bytes(of: UInt32.max) + Self.bytes(of: UInt32.max)), "a length no read holds")
        #expect(!Self.concerns(Array(Self.record(name: "db").prefix(15))))
        #expect(Self.concerns(Self.record(name: "db") + [1, 2, 3]), "a whole record, then a tail too short for another")
    }

    /// libFuzzer's find against the scan without its length check: a heap read past the buffer.
    @Test("the fuzzer's find: a name length of 1.8 GB after a 16-byte header and six bytes")
    func fuzzerFind() {
        let found: [UInt8] = [
            0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3D, 0x00, 0x00, 0x00, 0x6E,
            0x6F, 0x74, 0xFF, 0xFF, 0xFF, 0xFF,
        ]
        #expect(!Self.concerns(found))
    }
}
