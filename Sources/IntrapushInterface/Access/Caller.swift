// SPDX-License-Identifier: Apache-2.0

/// Who is on the other end of the local API's socket, as the kernel reported it
/// (`SO_PEERCRED`, `SO_PEERGROUPS`), with the names the user and group databases give: never
/// anything the caller said of itself.
package struct Caller: Sendable, Equatable {
    package var userID: UInt32
    package var processID: Int32
    /// The primary group and the supplementary groups, as the peer's process had them.
    package var groupIDs: [UInt32]
    /// `nil` for a user the user database does not know.
    package var userName: String?
    /// The names of `groupIDs` the group database knows.
    package var groupNames: [String]

    package init(userID: UInt32, processID: Int32 = 0, groupIDs: [UInt32], userName: String?, groupNames: [String]) {
        self.userID = userID
        self.processID = processID
        self.groupIDs = groupIDs
        self.userName = userName
        self.groupNames = groupNames
    }

    /// The names a push's `recipients` may address this caller by: their user name, then their
    /// groups' names.
    package var recipientNames: [String] {
        (userName.map { [$0] } ?? []) + groupNames
    }
}
