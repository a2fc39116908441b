// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// An interface of the local API, generated from its file in packaging/varlink/.
package protocol VarlinkInterface {
    static var name: String { get }
    /// The file's text, as `GetInterfaceDescription` returns it.
    static var description: String { get }
}

/// The errors one interface declares, and nothing else: a service answers only with these and
/// with `org.varlink.service`'s own (`VarlinkServiceInterface.Failure`).
package protocol VarlinkInterfaceFailure: Error, Equatable, Sendable {
    static var interface: String { get }
    /// Their qualified names.
    static var names: Set<String> { get }
    var varlinkError: VarlinkError { get }
    /// `nil` for an error this interface does not declare.
    init?(_ error: VarlinkError)
}

/// One method of an interface: what it takes, what it answers, how it may fail.
package protocol VarlinkMethod: Sendable {
    associatedtype Parameters: VarlinkStruct
    associatedtype Reply: VarlinkStruct
    associatedtype Failure: VarlinkInterfaceFailure
    /// `io.intrapush.Notifications.List`.
    static var qualifiedName: String { get }
    /// Whether a client may send the call once more when the daemon closed the connection
    /// before its first reply (a restart): the call reads, or changes nothing a second time.
    /// Declared in the interface file ("Safe to repeat"), generated; no default.
    static var mayRepeat: Bool { get }
}

/// Where the replies of one call go, and of no other: the server's handle of that call.
package protocol VarlinkReplySink: AnyObject {
    /// The caller asked for more: replies may continue.
    var wantsMore: Bool { get }
    /// Whether the call still waits for replies (its last was not sent, its connection is open).
    var isActive: Bool { get }
    /// Writes one reply of this call. The last (`continues` false) ends it; a reply that
    /// continues is the last when the caller did not ask for more. Once the call ended,
    /// nothing more is written.
    func send(_ reply: VarlinkReply)
    /// Runs `body` once the caller has read enough of what was written (at once if it has),
    /// unless the call ended meanwhile: a stream is paced by its reader.
    func whenWritable(_ body: @escaping () -> Void)
}

/// A method's typed replies on its call's sink: only its `Reply`, its interface's errors and
/// `org.varlink.service`'s can be sent, so nothing reaches a caller that the interface file
/// does not declare.
package struct VarlinkResponder<Method: VarlinkMethod> {
    package let sink: any VarlinkReplySink

    package init(_ sink: any VarlinkReplySink) {
        self.sink = sink
    }

    package var wantsMore: Bool { sink.wantsMore }
    package var isActive: Bool { sink.isActive }

    /// The call's last reply.
    package func reply(_ reply: Method.Reply) {
        sink.send(VarlinkReply(reply, continues: false))
    }

    /// One reply of a stream, more to come (the last, when the caller did not ask for more).
    package func yield(_ reply: Method.Reply) {
        sink.send(VarlinkReply(reply, continues: true))
    }

    package func whenWritable(_ body: @escaping () -> Void) {
        sink.whenWritable(body)
    }

    package func fail(_ failure: Method.Failure) {
        sink.send(.failure(failure.varlinkError))
    }

    /// `org.varlink.service`'s errors, for any method (its own methods' failures are these).
    @_disfavoredOverload
    package func fail(_ failure: VarlinkServiceInterface.Failure) {
        sink.send(.failure(failure.varlinkError))
    }
}
