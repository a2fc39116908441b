// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport

extension LocalAPI {
    /// `io.intrapush.Daemon`: who the caller is, and the daemon's live state.
    func answer(_ call: DaemonInterface.Call, caller: Caller, grant: Grant, on context: VarlinkCallContext) {
        switch call {
        case .whoAmI:
            context.responder(DaemonInterface.WhoAmI.self).reply(.init(
                uid: Int64(caller.userID), user: caller.userName, groups: caller.groupNames,
                reads: grant.reads, readsAll: grant.readsAll, sends: grant.sends))
        case .status:
            status(caller: caller, grant: grant, reply: context.responder(), on: context)
        }
    }

    private func status(caller: Caller, grant: Grant, reply: VarlinkResponder<DaemonInterface.Status>, on context: VarlinkCallContext) {
        guard grant.reads || grant.sends else {
            return reply.fail(.permissionDenied(
                message: "you may not ask this daemon; an administrator can add you to the group \(AccessPolicy.readerGroup)"))
        }
        var state = liveState()
        state.updatedAt = WallClock.nowMilliseconds()
        let version = LocalAPIInterfaces.version
        guard grant.reads else {
            return reply.reply(.init(version: version, state: state.localAPIValue, notifications: 0, unread: 0))
        }
        var all = NotificationQuery()
        all.viewer = viewer(of: caller, grant: grant)
        var unreadOnly = all
        unreadOnly.unreadOnly = true
        let counts = StatusCounts(visible: all, unread: unreadOnly)
        queries.piecewise(for: caller.userID, until: context) { try counts.next($0) }.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let (total, unread)):
                reply.reply(.init(version: version, state: state.localAPIValue, notifications: total, unread: unread))
            case .failure(let error):
                reply.fail(self.daemonFailure(error))
            }
        }
    }

    private func daemonFailure(_ error: any Error) -> DaemonInterface.Failure {
        isBusy(error) ? .busy(message: Self.busyMessage) : .storeFailed(message: Self.readFailedMessage)
    }
}

/// `Status`'s two counts, from indexes: on the quick lane when the sets they subtract are
/// small, else on the scan lane (see `SearchCount`). Used by one piece at a time.
final class StatusCounts: @unchecked Sendable {
    private let visible: NotificationQuery
    private let unread: NotificationQuery
    private var isFirst = true

    init(visible: NotificationQuery, unread: NotificationQuery) {
        (self.visible, self.unread) = (visible, unread)
    }

    func next(_ reader: NotificationReader) throws -> (Int64, Int64)? {
        defer { isFirst = false }
        let bound = QueryRunner.idsPerQuickPiece
        if isFirst, try !(reader.isCountedCheaply(visible, atMost: bound) && reader.isCountedCheaply(unread, atMost: bound)) {
            return nil
        }
        return (try reader.count(visible), try reader.count(unread))
    }
}
