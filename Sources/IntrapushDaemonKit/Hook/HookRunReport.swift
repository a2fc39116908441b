// SPDX-License-Identifier: Apache-2.0

import Logging

/// The log line for one finished run: the notification only as its id, never its content, nor
/// the token; the first bytes of stderr when the run did not succeed.
struct HookRunReport {
    let process: HookProcess
    let status: HookExitStatus
    let duration: Duration
    let timeout: Duration

    func log(to logger: Logger) {
        var metadata: Logger.Metadata = [
            "notification": "\(process.notificationID)",
            "status": "\(status)",
            "duration": "\(Self.milliseconds(duration))ms",
        ]
        switch process.termination {
        case .timedOut:
            metadata["stderr"] = stderrExcerpt
            logger.warning("hook timed out after \(Self.milliseconds(timeout))ms and was stopped", metadata: metadata)
        case .shuttingDown:
            metadata["stderr"] = stderrExcerpt
            logger.warning("hook killed: the daemon is stopping", metadata: metadata)
        case nil where status.isSuccess:
            logger.info("hook finished", metadata: metadata)
        case nil:
            metadata["stderr"] = stderrExcerpt
            logger.warning("hook failed", metadata: metadata)
        }
    }

    /// `nil` (left out) when the hook wrote nothing.
    private var stderrExcerpt: Logger.MetadataValue? {
        let text = String(decoding: process.standardErrorExcerpt, as: UTF8.self)
            .trimmingWhitespace()
        return text.isEmpty ? nil : "\(text)"
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
