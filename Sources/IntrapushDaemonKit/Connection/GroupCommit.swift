import IntrapushStore
/// Orders pushes into commits: one commit in flight at a time, and everything that arrived
/// meanwhile goes into the next one together (group commit: one fsync for many pushes).
///
/// Acknowledgements follow the batches in the order the batches were formed, so they leave in
/// arrival order, exactly one per push.
package struct GroupCommit: Sendable {
    /// Pushes received and not yet handed to the store.
    package private(set) var waiting: [Push] = []
    /// The payload bytes of `waiting`.
    package private(set) var waitingBytes = 0
    /// The batch the store is committing now.
    package private(set) var inFlight: [Push]?
    /// The most pushes one transaction takes; bounds the time a commit holds the write lock.
    package let maximumBatchSize: Int

    package init(maximumBatchSize: Int = 4096) {
        self.maximumBatchSize = maximumBatchSize
    }

    /// Nothing waiting and nothing being committed.
    package var isIdle: Bool { inFlight == nil && waiting.isEmpty }

    package mutating func received(_ push: Push) {
        waiting.append(push)
        waitingBytes += push.payloadByteCount
    }

    /// The batch to commit now, when no commit is in flight and something waits.
    package mutating func nextBatch() -> [Push]? {
        guard inFlight == nil, !waiting.isEmpty else { return nil }
        let batch: [Push]
        if waiting.count <= maximumBatchSize {
            // Hands the storage to the batch: a burst's large buffer is freed with its batch
            // instead of staying with an idle connection.
            batch = waiting
            waiting = []
            waitingBytes = 0
        } else {
            batch = Array(waiting.prefix(maximumBatchSize))
            waiting.removeFirst(maximumBatchSize)
            waitingBytes -= batch.reduce(0) { $0 + $1.payloadByteCount }
        }
        inFlight = batch
        return batch
    }

    /// The in-flight batch was committed: returns it so its pushes are acknowledged in order.
    package mutating func committed() -> [Push] {
        defer { inFlight = nil }
        return inFlight ?? []
    }

    /// The commit failed or the connection ended: nothing pending will be acknowledged.
    package mutating func abandon() {
        inFlight = nil
        waiting.removeAll()
        waitingBytes = 0
    }
}
