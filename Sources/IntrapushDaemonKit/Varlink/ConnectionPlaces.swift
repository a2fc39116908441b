// SPDX-License-Identifier: Apache-2.0

/// What a caller of the local API may do, which decides where their connections count.
enum ConnectionClass: Hashable, CaseIterable, Sendable {
    /// No right at all: they may ask who they are and what the daemon is.
    case noRights
    /// Reads or sends.
    case person
    /// Reads everything (root, the group intrapush-admin, the daemon's user).
    case administrator
}

/// Who holds the local API's connections, and who makes room (docs/operating.md, "Limits").
///
/// Each class has a share per uid, and the classes of those with fewer rights a pool of their
/// own, so that uids without a right (on Debian every account has a range of subordinate uids)
/// cannot take the readers' places; all together have a total, as high as the unit's
/// descriptors allow. A newcomer within its uid's share gets a place; when its pool or the total
/// is full, the uid holding the most connections there loses its oldest idle one (no call under
/// way), so nobody is shut out by others' numbers, an administrator's runaway script included.
/// Over its own share, or with nothing idle to take, the newcomer is refused: its one call is
/// answered `Busy`. Pure; the admission keeps one for all connections, on the event loop.
struct ConnectionPlaces<ID: Hashable> {
    struct Limits: Sendable {
        /// Connections one uid of the class may hold.
        var perUser: [ConnectionClass: Int] = [.noRights: 4, .person: 64, .administrator: 1024]
        /// Connections of a class all together; the administrators have the total only.
        var pools: [ConnectionClass: Int] = [.noRights: 64, .person: 3072]
        /// All connections: below the unit's LimitNOFILE=, with the daemon's own descriptors.
        var total = 4096
    }

    enum Decision: Equatable {
        /// A place, made by closing these idle connections of the largest holders.
        case admitted(evicting: [ID])
        /// No place: over its share, or nothing idle to take.
        case refused
    }

    private struct Holder {
        var user: UInt32
        var place: ConnectionClass
        var opened: UInt64
        var isIdle = true
    }

    private struct Key: Hashable {
        var user: UInt32
        var place: ConnectionClass
    }

    let limits: Limits
    private var holders: [ID: Holder] = [:]
    private var perUser: [Key: Int] = [:]
    private var perClass: [ConnectionClass: Int] = [:]
    private var sequence: UInt64 = 0

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Connections held, all together.
    var count: Int { holders.count }

    /// Connections `user` holds in `place`.
    func count(of user: UInt32, as place: ConnectionClass) -> Int {
        perUser[Key(user: user, place: place), default: 0]
    }

    /// Connections of a class.
    func count(in place: ConnectionClass) -> Int {
        perClass[place, default: 0]
    }

    /// A connection of `user`, of class `place`, asks for a place.
    mutating func opened(_ id: ID, by user: UInt32, as place: ConnectionClass) -> Decision {
        guard count(of: user, as: place) < limits.perUser[place, default: 0] else { return .refused }
        var evicted: [ID] = []
        if let pool = limits.pools[place], count(in: place) >= pool {
            guard let victim = oldestIdleOfLargestHolder(where: { $0.place == place }) else { return .refused }
            remove(victim)
            evicted.append(victim)
        }
        if holders.count >= limits.total {
            guard let victim = oldestIdleOfLargestHolder(where: { _ in true }) else {
                return evicted.isEmpty ? .refused : .admitted(evicting: evicted)
            }
            remove(victim)
            evicted.append(victim)
        }
        sequence += 1
        holders[id] = Holder(user: user, place: place, opened: sequence)
        perUser[Key(user: user, place: place), default: 0] += 1
        perClass[place, default: 0] += 1
        return .admitted(evicting: evicted)
    }

    /// A call began on the connection: it is not idle, and is not taken to make room.
    mutating func callStarted(_ id: ID) {
        holders[id]?.isIdle = false
    }

    mutating func callEnded(_ id: ID) {
        holders[id]?.isIdle = true
    }

    mutating func closed(_ id: ID) {
        remove(id)
    }

    private mutating func remove(_ id: ID) {
        guard let holder = holders.removeValue(forKey: id) else { return }
        let key = Key(user: holder.user, place: holder.place)
        perUser[key] = perUser[key, default: 1] > 1 ? perUser[key]! - 1 : nil
        perClass[holder.place, default: 1] -= 1
    }

    /// The oldest idle connection of the uid holding the most among those `included`; the next
    /// largest holder's when the largest has none idle.
    private func oldestIdleOfLargestHolder(where included: (Holder) -> Bool) -> ID? {
        var held: [UInt32: Int] = [:]
        var oldestIdle: [UInt32: (id: ID, opened: UInt64)] = [:]
        for (id, holder) in holders where included(holder) {
            held[holder.user, default: 0] += 1
            if holder.isIdle, oldestIdle[holder.user].map({ holder.opened < $0.opened }) ?? true {
                oldestIdle[holder.user] = (id, holder.opened)
            }
        }
        let largestFirst = held.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return largestFirst.lazy.compactMap { oldestIdle[$0.key]?.id }.first
    }
}
