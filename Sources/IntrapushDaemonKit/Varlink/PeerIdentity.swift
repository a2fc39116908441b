// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says of the process at the other end of an accepted Unix socket: its uid and
/// pid as it connected (`SO_PEERCRED`) and its groups (`SO_PEERGROUPS`). Read on the event loop
/// (two getsockopt calls); names come later, from `CallerDirectory`, off the loop.
struct PeerIdentity: Sendable, Equatable {
    var userID: UInt32
    var groupID: UInt32
    var processID: Int32
    /// The primary group first, then the supplementary ones.
    var groupIDs: [UInt32]

    /// `nil` when the kernel does not tell (not a Unix socket): such a peer is let in nowhere.
    static func read(from descriptor: Int32) -> PeerIdentity? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Swift's Glibc does not import.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            length == socklen_t(MemoryLayout.size(ofValue: credentials))
        else { return nil }
        var identity = PeerIdentity(userID: credentials.1, groupID: credentials.2, processID: credentials.0, groupIDs: [credentials.2])
        identity.groupIDs += supplementaryGroups(of: descriptor).filter { $0 != credentials.2 }
        return identity
    }

    /// Linux's SO_PEERGROUPS (4.13 and later); an empty list where it is missing, which grants
    /// nothing a group would.
    private static let peerGroupsOption: Int32 = 59
    /// NGROUPS_MAX on Linux.
    private static let mostGroups = 65536

    private static func supplementaryGroups(of descriptor: Int32) -> [UInt32] {
        var groups = [UInt32](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            if getsockopt(descriptor, SOL_SOCKET, peerGroupsOption, &groups, &length) == 0 {
                return Array(groups.prefix(Int(length) / MemoryLayout<UInt32>.size))
            }
            // ERANGE: the kernel wrote the length it needs.
            let needed = Int(length) / MemoryLayout<UInt32>.size
            guard errno == ERANGE, needed > groups.count, needed <= mostGroups else { return [] }
            groups = [UInt32](repeating: 0, count: needed)
        }
    }
}
