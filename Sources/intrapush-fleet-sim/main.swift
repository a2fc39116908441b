#if canImport(Glibc)
import Glibc
#endif
import IntrapushDaemonKit
import IntrapushFleetSimulation

// `make fleet-sim`: a server restart (2 s down) seen by fleets of 1,000 / 10,000 / 100,000 hosts
// with the default backoff (reconnect_min 1 s, reconnect_max 60 s), without a hint and with a
// close 1012 "retry-after=30"; then a primary that dies for good, its fleet moving to the second
// server of `host`. Each host is the daemon's own SessionStateMachine.
let backoff = Backoff(minimum: .seconds(1), maximum: .seconds(60))
let downtime = Duration.seconds(2)

/// `value` with `digits` decimals (no Foundation here).
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(scaled % Int(scale))
    return digits == 0 ? "\(whole)" : "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}

func seconds(_ duration: Duration) -> String {
    fixed(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18, 2) + " s"
}

print("server restart, down \(seconds(downtime)); reconnect_min 1 s, reconnect_max 60 s (the defaults)")
print("| hosts | server's hint | peak per 100 ms | p99 per 100 ms | 99 % back | all back |")
print("| ---: | --- | ---: | ---: | ---: | ---: |")
for hosts in [1_000, 10_000, 100_000] {
    for hint in [nil, Duration.seconds(30)] as [Duration?] {
        let simulation = FleetSimulation(hosts: hosts, backoff: backoff, downtime: downtime, retryAfter: hint)
        let report = FleetReport(arrivals: simulation.arrivals())
        let share = Double(report.peakPer100ms) / Double(hosts) * 100
        print("| \(hosts) | \(hint.map { "retry-after=\(seconds($0))" } ?? "none") | \(report.peakPer100ms) (\(fixed(share, 1)) %) | \(report.p99Per100ms) | \(seconds(report.untilNinetyNinePercent)) | \(seconds(report.untilAll)) |")
    }
}

print("")
print("the primary dies for good, the second server of host is up; the same backoff")
print("| hosts | peak per 100 ms at the second server | p99 per 100 ms | 99 % there | all there |")
print("| ---: | ---: | ---: | ---: | ---: |")
for hosts in [1_000, 10_000, 100_000] {
    let simulation = FleetSimulation(hosts: hosts, backoff: backoff, downtime: .zero)
    let arrivals = simulation.failoverArrivals()
    if arrivals.count < hosts {
        print("\(hosts - arrivals.count) of \(hosts) hosts never reached the second server")
        exit(1)
    }
    let report = FleetReport(arrivals: arrivals)
    let share = Double(report.peakPer100ms) / Double(hosts) * 100
    print("| \(hosts) | \(report.peakPer100ms) (\(fixed(share, 1)) %) | \(report.p99Per100ms) | \(seconds(report.untilNinetyNinePercent)) | \(seconds(report.untilAll)) |")
}
