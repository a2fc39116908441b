// SPDX-License-Identifier: Apache-2.0

/// `metrics_file`, renewed on the loop's turns: at most every `metricsFileInterval`, at the
/// heartbeats while connected and at each attempt otherwise, so that it costs no timer (and no
/// wake-up) of its own.
extension SessionLoop {
    static let metricsFileInterval: Duration = .seconds(15)

    mutating func writeMetricsFileIfDue() {
        guard let exporter = service.metrics, let path = configuration.metricsFile else { return }
        let now = ContinuousClock.now
        if let last = metricsFileWrittenAt, now - last < Self.metricsFileInterval { return }
        metricsFileWrittenAt = now
        exporter.write(toFile: path, on: service.clock.eventLoop, logger: logger)
    }
}
