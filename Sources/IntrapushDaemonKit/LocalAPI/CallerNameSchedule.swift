// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// When the names of the people who call are looked up, and on which thread.
///
/// A connection's calls are read only once its caller's names are known, so a look-up must not
/// wait behind another person's: each runs on a thread of the directory's own (a few, made as
/// needed), never on a lane that answers calls, and one the directory stalls holds that thread
/// and that person only. Answers are kept for `keptFor` (a directory's own caches keep theirs
/// about as long), and forgotten on a reload. Two connections of one person asking at once share
/// one look-up.
///
/// Pure: the shell (`CallerNames`) runs each look-up it is told to and reports its answer.
struct CallerNameSchedule {
    /// Whose names: the user and the groups the kernel gave the peer's process.
    struct Key: Hashable, Sendable {
        var userID: UInt32
        var groupIDs: [UInt32]
    }

    struct Names: Equatable, Sendable {
        var userName: String?
        var groupNames: [String]
    }

    enum Action: Equatable {
        /// Look `key` up on thread `thread` (a new one when there are fewer); report `lookedUp`.
        case lookUp(Key, thread: Int)
        /// Everyone waiting for `key` gets these names.
        case answer(Key, Names)
    }

    let threads: Int
    let keptFor: TimeAmount

    private var kept: [Key: (names: Names, until: NIODeadline)] = [:]
    /// Keys being looked up, and on which thread.
    private var running: [Key: Int] = [:]
    /// Keys waiting for a free thread, oldest first.
    private var queued: [Key] = []
    /// Threads with no look-up under way.
    private var idle: [Int] = []
    private var made = 0

    init(threads: Int, keptFor: TimeAmount) {
        precondition(threads > 0)
        self.threads = threads
        self.keptFor = keptFor
    }

    /// A connection of `key`'s was admitted.
    mutating func asked(_ key: Key, at now: NIODeadline) -> [Action] {
        if let entry = kept[key] {
            if entry.until > now { return [.answer(key, entry.names)] }
            kept[key] = nil
        }
        guard running[key] == nil, !queued.contains(key) else { return [] }
        if let thread = freeThread() {
            running[key] = thread
            return [.lookUp(key, thread: thread)]
        }
        queued.append(key)
        return []
    }

    /// The look-up of `key` answered.
    mutating func lookedUp(_ key: Key, _ names: Names, at now: NIODeadline) -> [Action] {
        guard let thread = running.removeValue(forKey: key) else { return [] }
        kept[key] = (names, now + keptFor)
        var actions: [Action] = [.answer(key, names)]
        if queued.isEmpty {
            idle.append(thread)
        } else {
            let next = queued.removeFirst()
            running[next] = thread
            actions.append(.lookUp(next, thread: thread))
        }
        return actions
    }

    /// A reload: group names may have changed; look-ups under way still answer.
    mutating func forgot() {
        kept = [:]
    }

    private mutating func freeThread() -> Int? {
        if let thread = idle.popLast() { return thread }
        guard made < threads else { return nil }
        made += 1
        return made - 1
    }
}
