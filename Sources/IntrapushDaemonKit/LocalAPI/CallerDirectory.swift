// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface

/// Names for the kernel's numbers, from the user and group databases (NSS: files, or a
/// directory service that may be slow), so it runs on threads of its own (`CallerNames`), never
/// an event loop or a lane that answers calls.
enum CallerDirectory {
    @Sendable static func names(_ key: CallerNameSchedule.Key) -> CallerNameSchedule.Names {
        CallerNameSchedule.Names(userName: userName(key.userID), groupNames: key.groupIDs.compactMap(groupName))
    }

    static func userName(_ uid: UInt32) -> String? {
        lookUp(passwd(), { getpwuid_r(uid, $0, $1, $2, $3) }) { $0.pw_name.map { String(cString: $0) } }
    }

    static func groupName(_ gid: UInt32) -> String? {
        lookUp(group(), { getgrgid_r(gid, $0, $1, $2, $3) }) { $0.gr_name.map { String(cString: $0) } }
    }

    static func groupID(named name: String) -> UInt32? {
        lookUp(group(), { getgrnam_r(name, $0, $1, $2, $3) }) { $0.gr_gid }
    }

    /// One reentrant look-up (`getpwuid_r` and its kin), its buffer grown while the entry does
    /// not fit: a group with many members does not fit a few KiB. `nil` when there is no entry.
    private static func lookUp<Entry, Value>(
        _ empty: Entry,
        _ call: (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>) -> Int32,
        _ value: (Entry) -> Value?
    ) -> Value? {
        var size = 4096
        while size <= 1 << 20 {
            var entry = empty
            var result: UnsafeMutablePointer<Entry>?
            var buffer = [CChar](repeating: 0, count: size)
            let status = buffer.withUnsafeMutableBufferPointer { call(&entry, $0.baseAddress!, $0.count, &result) }
            if status == ERANGE {
                size *= 4
                continue
            }
            guard status == 0, result != nil else { return nil }
            return value(entry)
        }
        return nil
    }
}
