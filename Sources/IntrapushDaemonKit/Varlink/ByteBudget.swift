// SPDX-License-Identifier: Apache-2.0

/// The bytes of unfinished messages the Varlink server holds: each connection at most the longest
/// message its caller may send (the framing refuses more), each person at most two of them, and
/// all together at most a total, so that one person's long messages can neither grow the daemon
/// without bound nor take everyone's room. The limits follow `max_message_size`, which a reload
/// may change: they are given with each reservation. Pure; confined to the event loop.
struct ByteBudget {
    private var perUser: [UInt32: Int] = [:]
    private(set) var held = 0

    init() {}

    /// Sets `bytes` aside for `user`, whose connections may hold `userLimit` together, all
    /// connections `total`; false when either budget has no room.
    mutating func reserve(_ bytes: Int, by user: UInt32, userLimit: Int, total: Int) -> Bool {
        let mine = perUser[user, default: 0]
        guard bytes <= total - held, bytes <= userLimit - mine else { return false }
        held += bytes
        perUser[user] = mine + bytes
        return true
    }

    mutating func release(_ bytes: Int, by user: UInt32) {
        guard bytes > 0 else { return }
        held -= bytes
        let left = perUser[user, default: bytes] - bytes
        perUser[user] = left > 0 ? left : nil
    }

    /// What `user`'s connections hold.
    func held(by user: UInt32) -> Int {
        perUser[user, default: 0]
    }
}
