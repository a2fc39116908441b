// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import NIOCore

extension LocalAPI {
    /// `io.intrapush.Notifications`: the caller's own notifications (an administrator's: all),
    /// read on the query thread, marked by the writer (the push loop).
    func answer(_ call: NotificationsInterface.Call, caller: Caller, grant: Grant, on context: VarlinkCallContext) {
        let viewer = self.viewer(of: caller, grant: grant)
        switch call {
        case .list(let parameters): list(parameters, caller: caller, viewer: viewer, reply: context.responder())
        case .count(let parameters): count(parameters, caller: caller, viewer: viewer, reply: context.responder())
        case .show(let parameters): show(parameters, caller: caller, viewer: viewer, reply: context.responder())
        case .markRead(let parameters): markRead(parameters, viewer: viewer, person: caller.userID, reply: context.responder())
        case .subscribe(let parameters): subscribe(parameters, caller: caller, viewer: viewer, on: context)
        }
    }

    /// The filter of `List` and `Count`, with the caller's eyes.
    func query(_ filter: NotificationsInterface.Filter?, caller: Caller, viewer: Viewer) -> Result<NotificationQuery, VarlinkServiceInterface.Failure> {
        NotificationQuery.reading(filter: filter).map { query, mine in
            var query = query
            query.viewer = viewer
            if mine { query.recipients = RecipientFilter(names: caller.recipientNames) }
            return query
        }
    }

    private func count(
        _ parameters: NotificationsInterface.Count.Parameters, caller: Caller, viewer: Viewer,
        reply: VarlinkResponder<NotificationsInterface.Count>
    ) {
        let query: NotificationQuery
        switch self.query(parameters.filter, caller: caller, viewer: viewer) {
        case .success(let made): query = made
        case .failure(let failure): return reply.fail(failure)
        }
        // The quick lane does what costs a bounded walk (`SearchCount`); the scan lane the rest,
        // and every search.
        let isSearch = query.text != nil
        let search = SearchCount(PiecewiseSearch(
            query, idsPerPiece: QueryRunner.idsPerScanPiece, idsInFirstPiece: isSearch ? nil : QueryRunner.idsPerQuickPiece))
        let counted =
            isSearch
            ? queries.scan(for: caller.userID, until: reply.context) { try search.next($0) }
            : queries.piecewise(for: caller.userID, until: reply.context) { try search.next($0) }
        counted.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let count): reply.reply(.init(count: count))
            case .failure(let error): reply.fail(self.notificationsFailure(error))
            }
        }
    }

    private func show(
        _ parameters: NotificationsInterface.Show.Parameters, caller: Caller, viewer: Viewer,
        reply: VarlinkResponder<NotificationsInterface.Show>
    ) {
        let id = parameters.id
        queries.run(for: caller.userID, until: reply.context) { try $0.notification(id: id, viewer: viewer) }.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let record?):
                reply.reply(.init(notification: record.localAPIValue))
            case .success(nil):
                // The same answer whether it does not exist or is someone else's.
                reply.fail(.noSuchNotification(id: id, message: "no notification \(id)"))
            case .failure(let error):
                reply.fail(self.notificationsFailure(error))
            }
        }
    }

    private func markRead(
        _ parameters: NotificationsInterface.MarkRead.Parameters, viewer: Viewer, person: UInt32,
        reply: VarlinkResponder<NotificationsInterface.MarkRead>
    ) {
        let ids: [Int64]?
        switch (parameters.ids, parameters.all ?? false) {
        case (let given?, false) where !given.isEmpty: ids = given
        case (nil, true): ids = nil
        default: return reply.fail(.invalidParameter(parameter: "ids"))
        }
        // Counted until it is committed, whether or not the caller waits for the answer.
        let cost = writes.cost(ofMarking: ids)
        writeStarted(by: person, ids: cost)
        outbox.markRead(ids: ids, for: viewer).assumeIsolated().whenComplete { result in
            self.writeFinished(by: person, ids: cost)
            switch result {
            case .success(let outcome):
                reply.reply(.init(
                    marked: Int64(outcome.marked), alreadyRead: Int64(outcome.alreadyRead), missing: outcome.missing,
                    receipts: Int64(outcome.receipts)))
            case .failure(let error):
                reply.fail(.storeFailed(message: self.storeFailedMessage(error, what: "mark them read")))
            }
        }
    }

    private func subscribe(
        _ parameters: NotificationsInterface.Subscribe.Parameters, caller: Caller, viewer: Viewer, on context: VarlinkCallContext
    ) {
        let reply = context.responder(NotificationsInterface.Subscribe.self)
        guard reply.wantsMore else { return reply.fail(.expectedMore) }
        guard let after = parameters.afterID else {
            queries.run(for: caller.userID, until: context) { try $0.latestID() }.assumeIsolated().whenComplete { result in
                switch result {
                case .success(let latest): self.subscriptions.add(reply, context: context, viewer: viewer, after: latest)
                case .failure(let error): reply.fail(self.notificationsFailure(error))
                }
            }
            return
        }
        guard after >= 0 else { return reply.fail(.invalidParameter(parameter: "after_id")) }
        subscriptions.add(reply, context: context, viewer: viewer, after: after)
    }

    func notificationsFailure(_ error: any Error) -> NotificationsInterface.Failure {
        isBusy(error) ? .busy(message: Self.busyMessage) : .storeFailed(message: Self.readFailedMessage)
    }
}
