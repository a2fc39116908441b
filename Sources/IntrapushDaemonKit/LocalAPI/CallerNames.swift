// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import NIOCore

/// The shell of `CallerNameSchedule`: the callers' names, looked up on threads of their own
/// (`intrapush-names`, made as needed) and kept a while. Confined to the local API's loop.
final class CallerNames: LocalAPINames, @unchecked Sendable {
    /// How many look-ups may run at once: a stalled directory holds one each.
    static let threads = 4
    static let keptFor: TimeAmount = .minutes(5)

    let eventLoop: any EventLoop
    /// The look-up itself (NSS in the daemon; tests stall it).
    private let lookUp: @Sendable (CallerNameSchedule.Key) -> CallerNameSchedule.Names
    private var schedule: CallerNameSchedule
    private var threads: [WorkerThread] = []
    private var waiting: [CallerNameSchedule.Key: [(PeerIdentity, EventLoopPromise<Caller>)]] = [:]

    init(
        eventLoop: any EventLoop, threads: Int = CallerNames.threads, keptFor: TimeAmount = CallerNames.keptFor,
        lookUp: @escaping @Sendable (CallerNameSchedule.Key) -> CallerNameSchedule.Names = CallerDirectory.names
    ) {
        self.eventLoop = eventLoop
        self.lookUp = lookUp
        schedule = CallerNameSchedule(threads: threads, keptFor: keptFor)
    }

    /// `identity` with names; completes on the loop.
    func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller> {
        eventLoop.assertInEventLoop()
        let key = CallerNameSchedule.Key(userID: identity.userID, groupIDs: identity.groupIDs)
        let promise = eventLoop.makePromise(of: Caller.self)
        waiting[key, default: []].append((identity, promise))
        perform(schedule.asked(key, at: .now()))
        return promise.futureResult
    }

    /// A reload: names are looked up again from now on.
    func forget() {
        eventLoop.assertInEventLoop()
        schedule.forgot()
    }

    /// Ends the threads once their look-ups return, without waiting for a stalled one.
    func stop() {
        eventLoop.assertInEventLoop()
        for thread in threads { thread.stopAfterQueuedWork() }
    }

    private func perform(_ actions: [CallerNameSchedule.Action]) {
        for action in actions {
            switch action {
            case .lookUp(let key, let index):
                if index == threads.count { threads.append(WorkerThread(name: .names)) }
                let lookUp = self.lookUp
                threads[index].submit { state in
                    guard case .active = state else { return self.eventLoop.execute { self.stopped(key) } }
                    let names = lookUp(key)
                    self.eventLoop.execute { self.perform(self.schedule.lookedUp(key, names, at: .now())) }
                }
            case .answer(let key, let names):
                for (identity, promise) in waiting.removeValue(forKey: key) ?? [] {
                    promise.succeed(Caller(
                        userID: identity.userID, processID: identity.processID, groupIDs: identity.groupIDs,
                        userName: names.userName, groupNames: names.groupNames))
                }
            }
        }
    }

    private func stopped(_ key: CallerNameSchedule.Key) {
        for (_, promise) in waiting.removeValue(forKey: key) ?? [] { promise.fail(WorkerThread.Stopped()) }
    }
}
