import IntrapushConfiguration
import IntrapushInterface
import IntrapushStore
import Logging
import NIOCore

/// The one gate between the people on the host and the notifications: every call of the local
/// API comes here with the caller the kernel named, is checked against the `AccessPolicy`, and
/// is answered through the outbox (writes, on the store thread), the `QueryRunner` (reads,
/// beside the store) or from memory. Confined to the daemon's event loop.
final class Gate: @unchecked Sendable {
    let limits: GateLimits
    let outbox: OutboxCoordinator
    let queries: QueryRunner
    let liveState: @Sendable () -> LiveState
    let logger: Logger
    private(set) var policy: AccessPolicy
    /// Made on first use, on the event loop, like everything the gate holds.
    private(set) lazy var subscriptions = Subscriptions(gate: self)
    var eventLoop: any EventLoop { outbox.eventLoop }

    init(
        limits: GateLimits, outbox: OutboxCoordinator, queries: QueryRunner, policy: AccessPolicy,
        liveState: @escaping @Sendable () -> LiveState, logger: Logger
    ) {
        self.limits = limits
        self.outbox = outbox
        self.queries = queries
        self.policy = policy
        self.liveState = liveState
        self.logger = logger
    }

    /// A reload may let everyone read, or no longer; groups are looked up again.
    func policyChanged(_ policy: AccessPolicy) {
        eventLoop.assertInEventLoop()
        self.policy = policy
    }

    func handle(_ call: VarlinkCall, on connection: VarlinkConnectionHandler) {
        eventLoop.assertInEventLoop()
        guard let identity = connection.identity else { return connection.fail(Self.permissionDenied("unknown caller")) }
        let grant = policy.grant(userID: identity.userID, groupIDs: identity.groupIDs)
        switch call.interface {
        case "org.varlink.service": answerService(call, on: connection)
        case "io.intrapush.Daemon": answerDaemon(call, grant: grant, on: connection)
        case "io.intrapush.Notifications":
            guard grant.reads else {
                return connection.fail(Self.permissionDenied(
                    "you may not read notifications here; an administrator can add you to the group \(AccessPolicy.readerGroup)",
                    interface: call.interface))
            }
            answerNotifications(call, grant: grant, on: connection)
        case "io.intrapush.Outbox":
            guard grant.sends else {
                return connection.fail(Self.permissionDenied(
                    "you may not send to the server as this host; an administrator can add you to the group \(AccessPolicy.senderGroup)",
                    interface: call.interface))
            }
            answerOutbox(call, on: connection)
        default:
            connection.fail(.interfaceNotFound(call.interface))
        }
    }

    /// The caller with names, looked up once per connection off the event loop.
    func withCaller(on connection: VarlinkConnectionHandler, _ body: @escaping (Caller) -> Void) {
        if let caller = connection.caller { return body(caller) }
        guard let identity = connection.identity else { return }
        queries.caller(identity).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let caller):
                connection.caller = caller
                body(caller)
            case .failure(let error):
                connection.fail(self.queryFailure(error, interface: "io.intrapush.Daemon"))
            }
        }
    }

    /// Whose eyes the caller reads with: all notifications for an administrator, else theirs.
    func viewer(of caller: Caller, grant: Grant) -> Viewer {
        Viewer(userID: Int64(caller.userID), userName: caller.userName, visibleNames: grant.readsAll ? nil : caller.recipientNames)
    }

    // MARK: Errors, in words for people

    static func permissionDenied(_ message: String, interface: String = "io.intrapush.Daemon") -> VarlinkError {
        VarlinkError(interface + ".PermissionDenied", ["message": .string(message)])
    }

    static func invalidMessage(_ message: String) -> VarlinkError {
        VarlinkError("io.intrapush.Daemon.InvalidMessage", ["message": .string(message)])
    }

    static func busy(_ interface: String) -> VarlinkError {
        VarlinkError(interface + ".Busy", ["message": .string("your earlier queries are still running; try again in a moment")])
    }

    func queryFailure(_ error: any Error, interface: String) -> VarlinkError {
        if error is QueryRunner.Busy { return Self.busy(interface) }
        logger.error("a query of the local API failed", metadata: ["error": "\(error)"])
        return VarlinkError(interface + ".StoreFailed", ["message": .string("the daemon could not read its database; see its log (journalctl -u intrapush)")])
    }

    func storeFailure(_ error: any Error, interface: String, what: String) -> VarlinkError {
        logger.error("could not \(what) for a caller of the local API", metadata: ["error": "\(error)"])
        let reason = (error as? DatabaseError)?.isDiskFull == true ? "the disk is full" : "see its log (journalctl -u intrapush)"
        return VarlinkError(interface + ".StoreFailed", ["message": .string("the daemon could not \(what): \(reason); nothing changed")])
    }
}
