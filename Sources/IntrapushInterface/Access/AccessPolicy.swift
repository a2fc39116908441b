/// Who may do what through the local API (README "Who may do what"): a pure rule over the
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

    /// What `caller` may do.
    package func grant(for caller: Caller) -> Grant {
        if caller.userID == 0 || caller.userID == daemonUserID { return Grant(reads: true, readsAll: true, sends: true) }
        let isAdmin = isMember(caller, of: adminGroupID)
        return Grant(
            reads: isAdmin || everyoneReads || isMember(caller, of: readerGroupID),
            readsAll: isAdmin,
            sends: isMember(caller, of: senderGroupID))
    }

    private func isMember(_ caller: Caller, of group: UInt32?) -> Bool {
        guard let group else { return false }
        return caller.groupIDs.contains(group)
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
