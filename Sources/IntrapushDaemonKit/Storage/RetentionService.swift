// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import Logging
import ServiceLifecycle

/// Prunes what `retention_days` and `retention_max_rows` no longer keep: at start, every
/// `interval`, and when a reload asks (`StoreWorker.requestPrune`).
///
/// A pass is one small batch per store-thread task, `pauseBetweenBatches` apart, then the freed
/// pages are given back likewise: the pushes' commits run between batches, and so does the CLI's
/// mark-read, which SQLite's busy handler would otherwise starve behind back-to-back batches.
struct RetentionService: Service {
    let storeWorker: StoreWorker
    let interval: Duration
    let pauseBetweenBatches: Duration
    let clock: EventLoopClock
    let logger: Logger

    init(
        storeWorker: StoreWorker, clock: EventLoopClock, interval: Duration = .seconds(3600),
        pauseBetweenBatches: Duration = .milliseconds(5), logger: Logger
    ) {
        self.storeWorker = storeWorker
        self.clock = clock
        self.interval = interval
        self.pauseBetweenBatches = pauseBetweenBatches
        self.logger = logger
    }

    func run() async throws {
        // The live-state row first: the pruner records its work in that row, and would insert a
        // placeholder if it were not there yet.
        await storeWorker.flushLiveState()
        let storeWorker = self.storeWorker
        let interval = self.interval
        let clock = self.clock
        storeWorker.requestPrune()
        await withDiscardingTaskGroup { group in
            group.addTask {
                await clock.every(interval) { storeWorker.requestPrune() }
            }
            // Not `.cancelOnGracefulShutdown()`: it merges in unstructured tasks (see `every`).
            try? await cancellingOnGracefulShutdown(on: clock.eventLoop) {
                for await _ in storeWorker.pruneRequests.stream {
                    await runPass()
                }
            }
            group.cancelAll()
        }
    }

    /// One whole pass; a graceful shutdown interrupts it between two batches.
    func runPass() async {
        let policy = storeWorker.retentionPolicy
        guard !policy.keepsEverything else { return }
        do {
            try await cancellingOnGracefulShutdown(on: clock.eventLoop) {
                var total = PruneProgress()
                repeat {
                    total.add(try await storeWorker.pruneBatch(policy: policy))
                    if !total.isComplete { try await clock.sleep(for: pauseBetweenBatches) }
                } while !total.isComplete
                if total.deleted > 0 {
                    logger.info("\(total)", metadata: ["retention": "\(policy)"])
                } else {
                    logger.debug("nothing to prune", metadata: ["retention": "\(policy)"])
                }
                var left = try await storeWorker.reclaimFreePages()
                while left > 0 {
                    try await clock.sleep(for: pauseBetweenBatches)
                    let before = left
                    left = try await storeWorker.reclaimFreePages()
                    if left >= before { break }  // nothing more comes back: stop, try next pass
                }
            }
        } catch is CancellationError {
            logger.debug("pruning interrupted: stopping")
        } catch {
            logger.warning("pruning failed; retried at the next pass", metadata: ["error": "\(error)"])
        }
    }
}
