// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The Varlink server's open connections, for its stop. A stopping server takes no new call:
/// a connection answering one finishes it and then closes, one with none closes at once. A
/// caller whose connection closes unanswered asks again, and under the unit reaches the next
/// daemon on the socket systemd holds; no caller is answered with an error because the daemon
/// is stopping. Confined to the event loop the socket runs on.
final class VarlinkConnections: @unchecked Sendable {
    let eventLoop: any EventLoop
    private var open: [ObjectIdentifier: VarlinkCallHandler] = [:]
    private var allClosed: EventLoopPromise<Void>?
    private(set) var isStopping = false

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    var count: Int { open.count }

    func opened(_ connection: VarlinkCallHandler) {
        eventLoop.assertInEventLoop()
        open[ObjectIdentifier(connection)] = connection
        if isStopping { connection.finishAndClose() }
    }

    func closed(_ connection: VarlinkCallHandler) {
        eventLoop.assertInEventLoop()
        open[ObjectIdentifier(connection)] = nil
        if open.isEmpty, let allClosed {
            self.allClosed = nil
            allClosed.succeed()
        }
    }

    /// Lets every connection finish the call it is answering, then close; completes once all
    /// have closed.
    func finishAndClose() -> EventLoopFuture<Void> {
        eventLoop.assertInEventLoop()
        isStopping = true
        let promise = allClosed ?? eventLoop.makePromise()
        allClosed = promise
        for connection in open.values { connection.finishAndClose() }
        if open.isEmpty {
            allClosed = nil
            promise.succeed()
        }
        return promise.futureResult
    }

    /// Closes what is still open, answered or not.
    func closeAll() {
        eventLoop.assertInEventLoop()
        for connection in open.values { connection.close() }
    }
}
