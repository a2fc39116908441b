// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import Prometheus

/// The daemon's Prometheus metrics (contract §8), named `intrapush_…`.
///
/// Most are derived from the same `StatusReport` that `intrapush status --json` prints, at the
/// moment they are rendered, so the two always agree and nothing is counted twice. Two are
/// recorded as things happen, because no report holds them: the push→ack latency histogram and
/// the reconnects by reason. The token never reaches a metric: the report has the server's URL
/// redacted, and no metric carries the URL.
final class DaemonMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let latency: DurationHistogram
    /// The latency's three parts, by `stage`.
    private let toStore: DurationHistogram
    private let commit: DurationHistogram
    private let toAcknowledgement: DurationHistogram
    private let reconnects: [String: Counter]
    private let fromReport: ReportMetrics

    /// Upper bounds of the latency buckets: a commit on a fast disk takes a fraction of a
    /// millisecond; seconds mean a stuck disk.
    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .microseconds(2_500_000), .seconds(5),
    ]

    /// The stages' buckets start lower: a hand-over between threads takes microseconds.
    static let stageBuckets: [Duration] = [.microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100)]
        + latencyBuckets

    init() {
        latency = registry.makeDurationHistogram(
            descriptor: .intrapush(
                "push_ack_latency", unit: "seconds",
                "Time from reading a push to writing its acknowledgement, which follows its commit."),
            buckets: Self.latencyBuckets)
        let stage = MetricNameDescriptor.intrapush(
            "push_stage", unit: "seconds",
            "The push->ack latency by stage: to_store (from the frame to the start of its commit: decoding, "
                + "the rest of the read, and a commit under way), commit (the transaction and its fsync), "
                + "to_ack (from the commit's end to the acknowledgement written).")
        toStore = registry.makeDurationHistogram(descriptor: stage, labels: [("stage", "to_store")], buckets: Self.stageBuckets)
        commit = registry.makeDurationHistogram(descriptor: stage, labels: [("stage", "commit")], buckets: Self.stageBuckets)
        toAcknowledgement = registry.makeDurationHistogram(
            descriptor: stage, labels: [("stage", "to_ack")], buckets: Self.stageBuckets)
        let reconnectsDescriptor = MetricNameDescriptor.intrapush(
            "reconnects", unit: "total",
            "Connections lost or attempts failed, each followed by a reconnect, by reason.")
        var reconnects: [String: Counter] = [:]
        for reason in DisconnectReason.metricLabels {
            reconnects[reason] = registry.makeCounter(descriptor: reconnectsDescriptor, labels: [("reason", reason)])
        }
        self.reconnects = reconnects
        fromReport = ReportMetrics(registry: registry)
    }

    /// A push read at `arrivedAt` was acknowledged at `acknowledgedAt` (uptime nanoseconds),
    /// after the commit `committed`.
    func pushAcknowledged(arrivedAt: UInt64, committed: CommittedBatch?, acknowledgedAt: UInt64) {
        latency.record(Self.between(arrivedAt, acknowledgedAt))
        guard let committed, committed.startedAtUptimeNanoseconds != 0 else { return }
        toStore.record(Self.between(arrivedAt, committed.startedAtUptimeNanoseconds))
        commit.record(Self.between(committed.startedAtUptimeNanoseconds, committed.finishedAtUptimeNanoseconds))
        toAcknowledgement.record(Self.between(committed.finishedAtUptimeNanoseconds, acknowledgedAt))
    }

    private static func between(_ start: UInt64, _ end: UInt64) -> Duration {
        .nanoseconds(Int64(clamping: end &- start))
    }

    /// A connection ended or an attempt failed, and the daemon will try again.
    func reconnectNeeded(because reason: DisconnectReason) {
        reconnects[reason.metricLabel]?.increment()
    }

    /// The text exposition (format 0.0.4) with the report's figures.
    func render(_ report: StatusReport) -> [UInt8] {
        fromReport.update(from: report)
        return registry.emitToBuffer()
    }
}

extension MetricNameDescriptor {
    static func intrapush(_ name: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "intrapush", metricName: name, unitName: unit, helpText: help)
    }
}

extension DisconnectReason {
    /// Every value of `metricLabel`, so each series exists (at 0) from the start.
    static let metricLabels = [
        "unreachable", "timeout", "token_rejected", "handshake_rejected", "subprotocol", "closed_by_server",
        "dead_peer", "message_too_large", "store_failed", "reconfigured", "client_certificate", "proxy",
        "server_asked_to_wait", "server_identity", "error",
    ]

    /// The `reason` label of `intrapush_reconnects_total`: the kind of failure, never its detail
    /// (a label with an error text would make a new series per message).
    var metricLabel: String {
        switch self {
        case .unreachable: "unreachable"
        case .timedOut: "timeout"
        case .handshakeRejected where isTokenRejection: "token_rejected"
        case .handshakeRejected: "handshake_rejected"
        case .clientCertificateRefused: "client_certificate"
        case .proxy: "proxy"
        case .serverIdentityRefused: "server_identity"
        case .serverAskedToWait: "server_asked_to_wait"
        case .subprotocolMismatch: "subprotocol"
        case .closedByServer: "closed_by_server"
        case .deadPeer: "dead_peer"
        case .messageTooLarge: "message_too_large"
        case .storeFailed: "store_failed"
        case .reconfigured: "reconfigured"
        case .shuttingDown, .returnedToPrimary, .error: "error"
        }
    }
}
