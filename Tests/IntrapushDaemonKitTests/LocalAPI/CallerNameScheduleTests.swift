// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Testing

@testable import IntrapushDaemonKit

/// The callers' names: looked up on a few threads of their own, one person's look-up never
/// behind another's while a thread is free, shared by connections asking at once, kept a while.
@Suite("When the callers' names are looked up")
struct CallerNameScheduleTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    static func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }
    static func key(_ uid: UInt32) -> CallerNameSchedule.Key { .init(userID: uid, groupIDs: [uid]) }
    static func names(_ uid: UInt32) -> CallerNameSchedule.Names { .init(userName: "u\(uid)", groupNames: []) }

    @Test("each person on a thread of their own while there are threads; then in order, on the first one free")
    func threads() {
        var schedule = CallerNameSchedule(threads: 2, keptFor: .seconds(300))
        #expect(schedule.asked(Self.key(1), at: Self.at(0)) == [.lookUp(Self.key(1), thread: 0)])
        #expect(schedule.asked(Self.key(2), at: Self.at(0)) == [.lookUp(Self.key(2), thread: 1)], "not behind the first")
        #expect(schedule.asked(Self.key(3), at: Self.at(0)).isEmpty, "both threads busy: it waits")
        #expect(schedule.asked(Self.key(1), at: Self.at(0)).isEmpty, "asked again: the same look-up")
        #expect(
            schedule.lookedUp(Self.key(2), Self.names(2), at: Self.at(1))
                == [.answer(Self.key(2), Self.names(2)), .lookUp(Self.key(3), thread: 1)],
            "a stalled first look-up holds its own thread only")
    }

    @Test("answers are kept for a while, then looked up again; a reload forgets them")
    func kept() {
        var schedule = CallerNameSchedule(threads: 1, keptFor: .seconds(300))
        _ = schedule.asked(Self.key(1), at: Self.at(0))
        _ = schedule.lookedUp(Self.key(1), Self.names(1), at: Self.at(0))
        #expect(schedule.asked(Self.key(1), at: Self.at(299)) == [.answer(Self.key(1), Self.names(1))])
        #expect(schedule.asked(Self.key(1), at: Self.at(300)) == [.lookUp(Self.key(1), thread: 0)])
        _ = schedule.lookedUp(Self.key(1), Self.names(1), at: Self.at(300))
        schedule.forgot()
        #expect(schedule.asked(Self.key(1), at: Self.at(301)) == [.lookUp(Self.key(1), thread: 0)])
    }
}
