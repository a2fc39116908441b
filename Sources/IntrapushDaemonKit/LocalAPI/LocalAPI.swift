// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushInterface
import IntrapushStore
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// What the local API writes through: the outbox (messages, requests, and marks with their
/// read receipts). `OutboxAcrossLoops` in the daemon; every future completes on the API's loop.
protocol LocalAPIOutbox: AnyObject {
    var settings: OutboxSettings { get }
    func queue(_ submission: OutboxSubmission) -> EventLoopFuture<Result<OutboxCoordinator.QueuedMessage, OutboxRefusal>>
    func stopAwaiting(row: Int64)
    func markRead(ids: [Int64]?, for viewer: Viewer) -> EventLoopFuture<NotificationMarker.Outcome>
    func wake()
}

/// Where the local API's reads run, people in turn: `QueryRunner` in the daemon. Each fails
/// with `QueryRunner.Busy` when too many of `user`'s wait already, and with
/// `QueryRunner.Cancelled` once `call` ended; completes on the loop.
protocol LocalAPIQueries: AnyObject {
    /// An index lookup, or a read of at most `QueryRunner.idsPerQuickPiece` ids: the quick lane.
    func run<T: Sendable>(
        for user: UInt32, until call: (any CallLifetime)?, _ work: @escaping @Sendable (NotificationReader) throws -> T
    ) -> EventLoopFuture<T>
    /// A search, a piece at a time: `piece` answers nil while more pieces follow.
    func scan<T: Sendable>(
        for user: UInt32, until call: (any CallLifetime)?, _ piece: @escaping @Sendable (NotificationReader) throws -> T?
    ) -> EventLoopFuture<T>
}

extension LocalAPIQueries {
    /// A read that may walk many rows (a filter no index serves), a piece at a time: its first
    /// piece (`PiecewiseSearch`'s small one) on the quick lane, where most pages find their
    /// rows; only if that did not answer, the rest on the scan lane, as a search.
    func piecewise<T: Sendable>(
        for user: UInt32, until call: (any CallLifetime)?, _ piece: @escaping @Sendable (NotificationReader) throws -> T?
    ) -> EventLoopFuture<T> {
        let first = run(for: user, until: call) { try piece($0) }
        return first.assumeIsolated().flatMap { found -> EventLoopFuture<T> in
            if let found { return first.eventLoop.makeSucceededFuture(found) }
            return self.scan(for: user, until: call, piece)
        }.nonisolated()
    }
}

/// The callers' names, off the lanes that answer calls: `CallerNames` in the daemon.
protocol LocalAPINames: AnyObject {
    /// `identity` with names; completes on the API's loop.
    func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller>
    /// A reload: names are looked up again from now on.
    func forget()
    /// The daemon stops.
    func stop()
}

/// The local API: the one gate between the people on the host and the notifications. Each call
/// comes with the caller the kernel named, is decoded as its interface file says (the types in
/// IntrapushInterface/LocalAPI, generated from packaging/varlink/), checked against the
/// `AccessPolicy`, and answered through the outbox (writes), the queries (reads) or from memory,
/// with only what the interface declares. Confined to the API's own event loop (not the push connection's).
final class LocalAPI: VarlinkService, @unchecked Sendable {
    let limits: LocalAPILimits
    let outbox: any LocalAPIOutbox
    let queries: any LocalAPIQueries
    /// The callers' names, looked up off the lanes that answer calls.
    let names: any LocalAPINames
    let liveState: @Sendable () -> LiveState
    let eventLoop: any EventLoop
    let logger: Logger
    private(set) var policy: AccessPolicy
    /// Each person's writes handed to the push loop and not yet committed.
    private(set) var writes = WriteBudget()
    /// The connections holding a write of a person over their budget, to go on once under it.
    private var waitingForWrites: [UInt32: [() -> Void]] = [:]
    /// Made on first use, on the event loop, like everything the API holds.
    private(set) lazy var subscriptions = Subscriptions(api: self)
    /// How many `Subscribe` calls are open, read after each commit on the push loop: with none,
    /// a commit does not wake this loop.
    let openSubscriptions = NIOLockedValueBox(0)

    init(
        limits: LocalAPILimits, outbox: any LocalAPIOutbox, queries: any LocalAPIQueries, names: (any LocalAPINames)? = nil,
        policy: AccessPolicy, eventLoop: any EventLoop, liveState: @escaping @Sendable () -> LiveState, logger: Logger
    ) {
        self.limits = limits
        self.outbox = outbox
        self.queries = queries
        self.names = names ?? CallerNames(eventLoop: eventLoop)
        self.policy = policy
        self.eventLoop = eventLoop
        self.liveState = liveState
        self.logger = logger
    }

    /// A reload may let everyone read, or no longer; groups are looked up again.
    func policyChanged(_ policy: AccessPolicy) {
        eventLoop.assertInEventLoop()
        self.policy = policy
        names.forget()
    }

    // MARK: The service

    var maximumMessageSize: Int { outbox.settings.maximumMessageSize }

    func connectionClass(of identity: PeerIdentity) -> ConnectionClass {
        let grant = policy.grant(userID: identity.userID, groupIDs: identity.groupIDs)
        if grant.readsAll { return .administrator }
        return grant.reads || grant.sends ? .person : .noRights
    }

    func handle(_ call: VarlinkCall, context: VarlinkCallContext) {
        eventLoop.assertInEventLoop()
        // A connection's calls are read once its caller's names are known.
        guard let caller = context.connection.caller else { return }
        let grant = policy.grant(userID: caller.userID, groupIDs: caller.groupIDs)
        switch call.interface {
        case VarlinkServiceInterface.name:
            dispatch(VarlinkServiceInterface.Call.decode(call), on: context) { self.answer($0, on: context) }
        case DaemonInterface.name:
            dispatch(DaemonInterface.Call.decode(call), on: context) { self.answer($0, caller: caller, grant: grant, on: context) }
        case NotificationsInterface.name:
            guard grant.reads else {
                return context.fail(NotificationsInterface.Failure.permissionDenied(
                    message: "you may not read notifications here; an administrator can add you to the group \(AccessPolicy.readerGroup)"))
            }
            dispatch(NotificationsInterface.Call.decode(call), on: context) { self.answer($0, caller: caller, grant: grant, on: context) }
        case OutboxInterface.name:
            guard grant.sends else {
                return context.fail(OutboxInterface.Failure.permissionDenied(
                    message: "you may not send to the server as this host; an administrator can add you to the group \(AccessPolicy.senderGroup)"))
            }
            dispatch(OutboxInterface.Call.decode(call), on: context) { self.answer($0, on: context) }
        default:
            context.fail(VarlinkServiceInterface.Failure.interfaceNotFound(interface: call.interface))
        }
    }

    /// A connection its owner had no room for: its call gets its interface's `Busy`, saying
    /// whose connections fill the daemon. What `org.varlink.service` asks is answered from memory.
    func refuse(_ call: VarlinkCall, context: VarlinkCallContext) {
        let admission = context.connection.admission
        let user = context.connection.identity?.userID ?? 0
        let place = context.connection.place
        let held = admission.connections(of: user, as: place)
        let message = held >= admission.limits.places.perUser[place, default: 0]
            ? "you have \(held) connections to intrapushd open, as many as one person may; close some of your programs' connections, or wait for them to finish, and try again"
            : "intrapushd has as many local connections open as it takes, and none of them is idle; try again in a moment"
        switch call.interface {
        case DaemonInterface.name: context.fail(DaemonInterface.Failure.busy(message: message))
        case NotificationsInterface.name: context.fail(NotificationsInterface.Failure.busy(message: message))
        case OutboxInterface.name: context.fail(OutboxInterface.Failure.busy(message: message))
        case VarlinkServiceInterface.name: dispatch(VarlinkServiceInterface.Call.decode(call), on: context) { self.answer($0, on: context) }
        default: context.fail(VarlinkServiceInterface.Failure.interfaceNotFound(interface: call.interface))
        }
    }

    func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller> {
        names.caller(of: identity)
    }

    /// The methods that write through the push loop: each counts against its person's budget
    /// from when it is read, whether or not its caller waits for the answer.
    static let writingMethods: Set<String> = [
        NotificationsInterface.MarkRead.qualifiedName, OutboxInterface.Send.qualifiedName, OutboxInterface.Request.qualifiedName,
    ]

    func mayStart(_ call: VarlinkCall, from identity: PeerIdentity) -> Bool {
        !Self.writingMethods.contains(call.method) || !writes.isFull(for: identity.userID)
    }

    func whenWritesHaveRoom(for identity: PeerIdentity, _ body: @escaping () -> Void) {
        guard writes.isFull(for: identity.userID) else { return body() }
        waitingForWrites[identity.userID, default: []].append(body)
    }

    func onewayRefused(_ call: VarlinkCall, _ error: VarlinkError, by identity: PeerIdentity?) -> Bool {
        guard Self.writingMethods.contains(call.method) else { return false }
        logger.warning(
            "a call that asked for no answer was refused, so its caller does not know: \(call.method): \(error.message ?? error.name) (later refusals on the same connection are not logged)",
            metadata: ["uid": "\(identity.map { "\($0.userID)" } ?? "unknown")"])
        return true
    }

    /// A write of `person`'s goes to the push loop.
    func writeStarted(by person: UInt32, ids: Int = 0) {
        writes.started(by: person, ids: ids)
    }

    /// It was committed (or failed): their connections go on once they are under their budget.
    func writeFinished(by person: UInt32, ids: Int = 0) {
        guard writes.finished(by: person, ids: ids), let waiting = waitingForWrites.removeValue(forKey: person) else { return }
        for resume in waiting { resume() }
    }

    func closed(_ identity: PeerIdentity?, because reason: String) {
        logger.debug("closed a local API connection: \(reason)", metadata: ["uid": "\(identity.map { "\($0.userID)" } ?? "unknown")"])
    }

    private func dispatch<Call>(_ decoded: Result<Call, VarlinkServiceInterface.Failure>, on context: VarlinkCallContext, _ answer: (Call) -> Void) {
        switch decoded {
        case .success(let call): answer(call)
        case .failure(let failure): context.fail(failure)
        }
    }

    // MARK: Who is asking

    /// Whose eyes the caller reads with: all notifications for an administrator, else theirs.
    func viewer(of caller: Caller, grant: Grant) -> Viewer {
        Viewer(userID: Int64(caller.userID), userName: caller.userName, visibleNames: grant.readsAll ? nil : caller.recipientNames)
    }

    // MARK: Failures, in words for people

    /// Busy when the user's queries fill their queue; else the database failed (logged).
    func isBusy(_ error: any Error) -> Bool {
        if error is QueryRunner.Busy { return true }
        // Its caller has gone: the answer goes nowhere, and nothing failed.
        if error is QueryRunner.Cancelled { return false }
        logger.error("a query of the local API failed", metadata: ["error": "\(error)"])
        return false
    }

    static let busyMessage = "your earlier queries are still running; try again in a moment"
    static let readFailedMessage = "the daemon could not read its database; see its log (journalctl -u intrapush)"

    func storeFailedMessage(_ error: any Error, what: String) -> String {
        logger.error("could not \(what) for a caller of the local API", metadata: ["error": "\(error)"])
        let partly = error as? MarkPartlyDone
        let cause = partly?.cause ?? error
        let reason = (cause as? DatabaseError)?.isDiskFull == true ? "the disk is full" : "see its log (journalctl -u intrapush)"
        guard let partly else { return "the daemon could not \(what): \(reason); nothing changed" }
        return "the daemon could not \(what): \(reason); \(partly.kept.marked) were marked read before it failed, and stay so"
    }
}

extension VarlinkCallContext {
    /// Fails the call with an error of its own interface's, or `org.varlink.service`'s.
    func fail(_ failure: some VarlinkInterfaceFailure) {
        send(.failure(failure.varlinkError))
    }

    func responder<Method: VarlinkMethod>(_ method: Method.Type = Method.self) -> VarlinkResponder<Method> {
        VarlinkResponder(self)
    }
}
