// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushDaemonKit
import IntrapushDevServer
import IntrapushSupport
import IntrapushFleetSimulation

// `make fleet-sim`: a server restart (2 s down) seen by fleets of 1,000 / 10,000 / 100,000 hosts
// with the default backoff (reconnect_min 1 s, reconnect_max 60 s), without a hint and with a
// close 1012 "retry-after=30"; then a primary that dies for good, its fleet moving to the second
// server of `host`. Each host is the daemon's own SessionStateMachine.
//
// `intrapush-fleet-sim deliver --server HOST:PORT --token-file FILE [--org ORG] [--hosts N]
// [--pushes N]`: a fleet under one token against a running devserver (protocol §10), each host a
// client with its own identity; every push for the org must reach every host exactly once. Prints
// one line of JSON; exits 1 when a host missed a push or read one twice.
if CommandLine.arguments.dropFirst().first == "deliver" {
    exit(await deliver(Array(CommandLine.arguments.dropFirst(2))))
}

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

/// `deliver`'s run; its exit status.
func deliver(_ arguments: [String]) async -> Int32 {
    var options: [String: String] = ["--org": "acme", "--hosts": "1000", "--pushes": "10"]
    var index = 0
    while index + 1 < arguments.count, ["--server", "--token-file", "--org", "--hosts", "--pushes"].contains(arguments[index]) {
        options[arguments[index]] = arguments[index + 1]
        index += 2
    }
    guard index == arguments.count, let address = options["--server"].flatMap(ServerAddress.init(parsing:)),
        let tokenFile = options["--token-file"], let hosts = options["--hosts"].flatMap({ Int($0) }), hosts > 0,
        let pushes = options["--pushes"].flatMap({ Int($0) }), pushes > 0
    else {
        StandardError.writeLine("usage: intrapush-fleet-sim deliver --server HOST:PORT --token-file FILE [--org ORG] [--hosts N] [--pushes N]")
        return 64
    }
    guard let token = readFirstLine(tokenFile) else {
        StandardError.writeLine("intrapush-fleet-sim: cannot read the token from \(tokenFile)")
        return 66
    }
    do {
        let report = try await FleetDelivery(
            server: address, token: token, org: options["--org"]!, hosts: hosts, pushes: pushes
        ).run()
        print(#"{"hosts":\#(report.hosts),"pushes":\#(report.pushes),"exact_hosts":\#(report.exactHosts),"read":\#(report.read),"#
            + #""duplicates":\#(report.duplicates),"missing":\#(report.missing),"server_deliveries":\#(report.serverDeliveries),"#
            + #""server_acknowledged":\#(report.serverAcknowledged),"connect_s":\#(fixed(secondsValue(report.connecting), 3)),"#
            + #""deliver_s":\#(fixed(secondsValue(report.delivering), 3)),"exact":\#(report.isExact)}"#)
        return report.isExact ? 0 : 1
    } catch {
        StandardError.writeLine("intrapush-fleet-sim: \(error)")
        return 1
    }
}

func secondsValue(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The first line of a file, without its end of line; `nil` when it cannot be read or is empty.
func readFirstLine(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    guard getline(&line, &capacity, file) > 0, let line else { return nil }
    defer { free(line) }
    let text = String(cString: line).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
    return text.isEmpty ? nil : text
}
