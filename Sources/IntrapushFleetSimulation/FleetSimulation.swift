// SPDX-License-Identifier: Apache-2.0

import IntrapushDaemonKit

/// A fleet of hosts, each driven by the daemon's own `SessionStateMachine` (not a copy of its
/// rule), through a server restart: at time 0 the server closes every connection (with or
/// without a hint) and is back `downtime` later; attempts before then fail as refused.
///
/// Time is simulated; only the machine's decisions are real. Deterministic for a seed.
package struct FleetSimulation: Sendable {
    package var hosts: Int
    package var backoff: Backoff
    package var downtime: Duration
    /// The server's hint on its close (1012 with `retry-after=N`); nil: a plain 1001.
    package var retryAfter: Duration?
    package var seed: UInt64

    package init(hosts: Int, backoff: Backoff, downtime: Duration, retryAfter: Duration? = nil, seed: UInt64 = 1) {
        self.hosts = hosts
        self.backoff = backoff
        self.downtime = downtime
        self.retryAfter = retryAfter
        self.seed = seed
    }

    /// Every host's successful reconnect, measured from the server's return, sorted.
    package func arrivals() -> [Duration] {
        let origin = ContinuousClock.Instant.now
        var arrivals: [Duration] = []
        arrivals.reserveCapacity(hosts)
        let closed: DisconnectReason = retryAfter.map { .serverAskedToWait($0, origin: "close 1012") } ?? .closedByServer(code: 1001)
        for host in 0..<hosts {
            var machine = SessionStateMachine(backoff: backoff, random: SplitMix64(seed: seed &+ UInt64(host) &* 0x9E37_79B9_7F4A_7C15))
            var id = Self.dialled(machine.started())
            _ = machine.connectionEstablished(id, at: origin - .seconds(3600))
            var now = Duration.zero
            var actions = machine.connectionLost(id, closed, at: origin)
            while true {
                guard actions.count == 1, case .scheduleReconnect(let delay, _, _)? = actions.first else {
                    preconditionFailure("the machine did not schedule a reconnect: \(actions)")
                }
                now += delay
                id = Self.dialled(machine.reconnectDelayElapsed())
                if now >= downtime {
                    arrivals.append(now - downtime)
                    break
                }
                actions = machine.connectionFailed(id, .unreachable("connection refused"), at: origin + now)
            }
        }
        return arrivals.sorted()
    }

    /// The id of the one dial `actions` start; the machine must dial here.
    static func dialled(_ actions: [SessionStateMachine<SplitMix64>.Action]) -> ConnectionID {
        guard actions.count == 1, case .connect(let id, _)? = actions.first else {
            preconditionFailure("the machine did not dial: \(actions)")
        }
        return id
    }

    /// A host not at the second server after this much simulated time never gets there: it is
    /// left out of the arrivals (a machine that stopped failing over ends the run, not hangs it).
    package static let failoverHorizon = Duration.seconds(86_400)

    /// Every host's arrival at the second server after the primary died for good at time 0
    /// (`host` a list of two; the second is up), measured from the death, sorted.
    package func failoverArrivals() -> [Duration] {
        let origin = ContinuousClock.Instant.now
        var arrivals: [Duration] = []
        arrivals.reserveCapacity(hosts)
        for host in 0..<hosts {
            var machine = SessionStateMachine(
                backoff: backoff, random: SplitMix64(seed: seed &+ UInt64(host) &* 0x9E37_79B9_7F4A_7C15), serverCount: 2,
                failbackInterval: nil)
            var id = Self.dialled(machine.started())
            _ = machine.connectionEstablished(id, at: origin - .seconds(3600))
            var now = Duration.zero
            var actions = machine.connectionLost(id, .closedByServer(code: nil), at: origin)
            while true {
                guard actions.count == 1, case .scheduleReconnect(let delay, _, _)? = actions.first else {
                    preconditionFailure("the machine did not schedule a reconnect: \(actions)")
                }
                now += delay
                id = Self.dialled(machine.reconnectDelayElapsed())
                if machine.currentServer == 1 {
                    arrivals.append(now)
                    break
                }
                if now > Self.failoverHorizon { break }
                actions = machine.connectionFailed(id, .unreachable("connection refused"), at: origin + now)
            }
        }
        return arrivals.sorted()
    }
}

/// What an operator reads off the arrivals.
package struct FleetReport: Sendable, Equatable {
    /// The most arrivals in any 100 ms window (sliding), and that as a share of the fleet.
    package var peakPer100ms: Int
    /// The 99th percentile of arrivals per 100 ms bin, over the bins until everyone is back.
    package var p99Per100ms: Int
    /// From the server's return until 99 % and 100 % of the hosts are back.
    package var untilNinetyNinePercent: Duration
    package var untilAll: Duration

    package init(arrivals: [Duration]) {
        let window = Duration.milliseconds(100)
        var peak = 0
        var first = 0
        for last in arrivals.indices {
            while arrivals[last] - arrivals[first] >= window { first += 1 }
            peak = max(peak, last - first + 1)
        }
        peakPer100ms = peak
        let last = arrivals.last ?? .zero
        var bins = [Int](repeating: 0, count: Int(last / window) + 1)
        for arrival in arrivals { bins[Int(arrival / window)] += 1 }
        let sortedBins = bins.sorted()
        p99Per100ms = sortedBins[min(sortedBins.count - 1, Int((Double(sortedBins.count) * 0.99).rounded(.up)) - 1)]
        untilNinetyNinePercent = arrivals.isEmpty ? .zero : arrivals[min(arrivals.count - 1, Int((Double(arrivals.count) * 0.99).rounded(.up)) - 1)]
        untilAll = last
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64), so a run repeats.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
