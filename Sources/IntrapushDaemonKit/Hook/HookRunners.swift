// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import Logging

/// The daemon's `on_notification` runner across reloads: the current one, and those a reload
/// replaced, which finish the hooks they started and are kept for their counters (a handful of
/// small objects at most: one per reload that changed the command).
struct HookRunners {
    private(set) var current: HookRunner?
    private var replaced: [HookRunner] = []
    private let settings: HookRunner.Settings
    private let logger: Logger

    init(command: HookCommandLine?, settings: HookRunner.Settings = HookRunner.Settings(), logger: Logger) {
        self.settings = settings
        self.logger = logger
        current = command.flatMap(makeRunner)
    }

    /// `status`'s figures since the daemon started, summed over every runner it had.
    var counters: HookRunner.Counters {
        var total = HookRunner.Counters()
        for runner in replaced + (current.map { [$0] } ?? []) {
            let counters = runner.counters
            total.started += counters.started
            total.succeeded += counters.succeeded
            total.failed += counters.failed
            total.timedOut += counters.timedOut
            total.dropped += counters.dropped
        }
        return total
    }

    /// Whether any runner ever existed (no counters to report otherwise).
    var isEmpty: Bool { current == nil && replaced.isEmpty }

    /// Takes the command of a reloaded configuration. When it changed, a new runner (or none)
    /// becomes current and the old one is returned, for the caller to retire: it stops taking
    /// notifications and lets its running hooks end (`retire`).
    mutating func reloaded(command: HookCommandLine?) -> (changed: Bool, retired: HookRunner?) {
        guard command != current?.command else { return (false, nil) }
        let old = current
        current = command.flatMap(makeRunner)
        if let old { replaced.append(old) }
        if let command {
            logger.info("on_notification now runs \(command)")
        } else {
            logger.info("on_notification removed: no hook runs any more")
        }
        return (true, old)
    }

    /// Lets a replaced runner's hooks run to their own timeout, then kills what is left.
    static func retire(_ runner: HookRunner) async {
        await runner.shutdown(gracePeriod: runner.settings.timeout + runner.settings.killGracePeriod)
    }

    /// On the way out: every runner stops within its default grace period. Returns once the
    /// current runner's thread ended; replaced ones being retired end by the same deadline.
    func shutdown() async {
        for runner in replaced { await runner.shutdown() }
        await current?.shutdown()
    }

    private func makeRunner(_ command: HookCommandLine) -> HookRunner? {
        do {
            return try HookRunner(command: command, settings: settings, logger: logger)
        } catch {
            logger.error("on_notification is not run: \(error)")
            return nil
        }
    }
}

extension LiveState {
    /// Copies the hook's counters in, for `status`.
    mutating func recordHooks(_ counters: HookRunner.Counters) {
        hookRuns = Int64(counters.started)
        hookFailures = Int64(counters.failed)
        hookTimeouts = Int64(counters.timedOut)
        hookDropped = Int64(counters.dropped)
    }
}
