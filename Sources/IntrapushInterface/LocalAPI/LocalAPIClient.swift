// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Why a call of the local API did not give its reply.
package enum LocalAPIError<Failure: VarlinkInterfaceFailure>: Error, Equatable {
    /// The daemon was not reached, or stopped answering.
    case unreachable(VarlinkConnection.Failure)
    /// One of the errors the method's interface declares.
    case failed(Failure)
    /// One of `org.varlink.service`'s: a method, interface or parameter this daemon does not know.
    case service(VarlinkServiceInterface.Failure)
    /// An error or a reply the interface does not declare: a daemon of another version.
    case unexpected(String)
}

/// The local API, typed: every CLI verb, `intrapush status` and the desktop agent call the
/// daemon through this, with the parameters and replies generated from the interface files.
/// One connection, blocking, one call at a time (Varlink answers a connection's calls in order).
///
/// A daemon that is stopping finishes the calls it has begun and closes the connections of the
/// others unanswered; such a call is sent once more, quietly, on a new connection (under the
/// unit the next daemon answers on the socket systemd holds), when its method may repeat.
package final class LocalAPIClient {
    package private(set) var connection: VarlinkConnection
    package var path: String { connection.path }

    package init(path: String) throws(VarlinkConnection.Failure) {
        connection = try VarlinkConnection(path: path)
    }

    /// One call and its one reply.
    package func call<Method: VarlinkMethod>(
        _ method: Method.Type, _ parameters: Method.Parameters, timeout: Duration? = nil
    ) throws(LocalAPIError<Method.Failure>) -> Method.Reply {
        let stream = try start(method, parameters, more: false)
        guard let reply = try stream.next(timeout: timeout) else { throw .unexpected("the daemon answered nothing") }
        return reply
    }

    /// Sends a call and returns its replies as they come: one without `more`, a stream with it.
    package func start<Method: VarlinkMethod>(
        _ method: Method.Type, _ parameters: Method.Parameters, more: Bool
    ) throws(LocalAPIError<Method.Failure>) -> LocalAPIReplies<Method> {
        guard case .object(let members) = parameters.varlinkJSON else { preconditionFailure("parameters are an object") }
        let call = VarlinkCall(method: Method.qualifiedName, parameters: members, more: more)
        let replies = LocalAPIReplies<Method>(client: self, call: call)
        do {
            try connection.send(call)
        } catch .closedUnanswered where Method.mayRepeat {
            try replies.sendAgain()
        } catch {
            throw .unreachable(error)
        }
        return replies
    }

    /// A new connection to the same socket, for a call the daemon closed unanswered.
    fileprivate func reconnect() throws(VarlinkConnection.Failure) {
        connection = try VarlinkConnection(path: connection.path)
    }
}

/// The replies of one call, in order; `nil` once its last reply was read.
package final class LocalAPIReplies<Method: VarlinkMethod> {
    let client: LocalAPIClient
    let call: VarlinkCall
    package private(set) var isFinished = false
    private var hasReplied = false
    private var wasSentAgain = false

    fileprivate init(client: LocalAPIClient, call: VarlinkCall) {
        self.client = client
        self.call = call
    }

    var connection: VarlinkConnection { client.connection }

    /// The next reply, waiting at most `timeout` for it (`.zero`: only one already here, else
    /// `.unreachable(.noAnswer)`); `nil` after the last.
    package func next(timeout: Duration? = nil) throws(LocalAPIError<Method.Failure>) -> Method.Reply? {
        guard !isFinished else { return nil }
        let reply: VarlinkReply
        do {
            reply = try connection.nextReply(timeout: timeout)
        } catch .closedUnanswered where Method.mayRepeat && !hasReplied && !wasSentAgain {
            try sendAgain()
            return try next(timeout: timeout)
        } catch {
            throw .unreachable(error)
        }
        hasReplied = true
        if !reply.continues { isFinished = true }
        if let name = reply.error {
            isFinished = true
            let error = VarlinkError(name, reply.parameters)
            if let failure = Method.Failure(error) { throw .failed(failure) }
            if let failure = VarlinkServiceInterface.Failure(error) { throw .service(failure) }
            throw .unexpected("intrapushd answered \(name)\(error.message.map { ": \($0)" } ?? "")")
        }
        do {
            return try Method.Reply(varlink: .object(reply.parameters), at: "", strict: false)
        } catch {
            throw .unexpected("intrapushd's answer has no usable \(error.field)")
        }
    }

    /// The call once more, on a new connection: the daemon closed the last one unanswered.
    fileprivate func sendAgain() throws(LocalAPIError<Method.Failure>) {
        wasSentAgain = true
        do {
            try client.reconnect()
            try connection.send(call)
        } catch {
            throw .unreachable(error)
        }
    }
}
