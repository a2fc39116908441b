// SPDX-License-Identifier: Apache-2.0

/// Who may do what through the local API (docs/local-api.md): a pure rule over the
/// caller's uid and groups, which the kernel reported.
///
/// - Reading one's own notifications: members of the readers' group (`intrapush`), or every
///   local user when `readers = "everyone"`.
/// - Queueing messages and requests as the host: members of `intrapush-send`.
/// - Everything, unfiltered: members of `intrapush-admin`.
/// Root and the daemon's own user may do everything. A group that does not exist grants nothing.
package struct AccessPolicy: Sendable, Equatable {
    package var everyoneReads: Bool
    package var readerGroupID: UInt32?
    package var senderGroupID: UInt32?
    package var adminGroupID: UInt32?
    /// The user the daemon runs as: it owns the database anyway.
    package var daemonUserID: UInt32

    package init(everyoneReads: Bool, readerGroupID: UInt32?, senderGroupID: UInt32?, adminGroupID: UInt32?, daemonUserID: UInt32) {
        self.everyoneReads = everyoneReads
        self.readerGroupID = readerGroupID
        self.senderGroupID = senderGroupID
        self.adminGroupID = adminGroupID
        self.daemonUserID = daemonUserID
    }

    /// The groups' names, fixed so that packages and documentation can name them.
    package static let readerGroup = "intrapush"
    package static let senderGroup = "intrapush-send"
    package static let adminGroup = "intrapush-admin"

    /// What the user `userID` in the groups `groupIDs` may do: numbers only, as the kernel
    /// gives them, so the grant needs no look-up of names.
    package func grant(userID: UInt32, groupIDs: [UInt32]) -> Grant {
        if userID == 0 || userID == daemonUserID { return Grant(reads: true, readsAll: true, sends: true) }
        func isMember(_ group: UInt32?) -> Bool { group.map(groupIDs.contains) ?? false }
        let isAdmin = isMember(adminGroupID)
        return Grant(reads: isAdmin || everyoneReads || isMember(readerGroupID), readsAll: isAdmin, sends: isMember(senderGroupID))
    }
}

/// What one caller may do.
package struct Grant: Sendable, Equatable {
    /// Read and mark the notifications addressed to them.
    package var reads: Bool
    /// See every notification, whoever it is for.
    package var readsAll: Bool
    /// Queue messages and requests for the server as the host.
    package var sends: Bool

    package init(reads: Bool, readsAll: Bool, sends: Bool) {
        self.reads = reads
        self.readsAll = readsAll
        self.sends = sends
    }
}
