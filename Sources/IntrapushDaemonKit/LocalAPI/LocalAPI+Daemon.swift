import IntrapushInterface
import IntrapushStore
import IntrapushSupport

extension LocalAPI {
    /// `io.intrapush.Daemon`: who the caller is, and the daemon's live state.
    func answer(_ call: DaemonInterface.Call, grant: Grant, on context: VarlinkCallContext) {
        switch call {
        case .whoAmI:
            let reply = context.responder(DaemonInterface.WhoAmI.self)
            withCaller(on: context, failing: { reply.fail(self.daemonFailure($0)) }) { caller in
                reply.reply(.init(
                    uid: Int64(caller.userID), user: caller.userName, groups: caller.groupNames,
                    reads: grant.reads, readsAll: grant.readsAll, sends: grant.sends))
            }
        case .status:
            status(grant: grant, reply: context.responder(), on: context)
        }
    }

    private func status(grant: Grant, reply: VarlinkResponder<DaemonInterface.Status>, on context: VarlinkCallContext) {
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
        withCaller(on: context, failing: { reply.fail(self.daemonFailure($0)) }) { caller in
            var all = NotificationQuery()
            all.viewer = self.viewer(of: caller, grant: grant)
            var unreadOnly = all
            unreadOnly.unreadOnly = true
            let (visible, unread) = (all, unreadOnly)
            self.queries.run(for: caller.userID, until: context) { reader in
                (try reader.count(visible), try reader.count(unread))
            }.assumeIsolated().whenComplete { result in
                switch result {
                case .success(let (total, unread)):
                    reply.reply(.init(version: version, state: state.localAPIValue, notifications: total, unread: unread))
                case .failure(let error):
                    reply.fail(self.daemonFailure(error))
                }
            }
        }
    }

    private func daemonFailure(_ error: any Error) -> DaemonInterface.Failure {
        isBusy(error) ? .busy(message: Self.busyMessage) : .storeFailed(message: Self.readFailedMessage)
    }
}
