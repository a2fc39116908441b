// SPDX-License-Identifier: Apache-2.0

/// Coalesces writes to the database: one write in flight at a time, and everything that
/// arrives meanwhile goes into the next one together (one transaction, one fsync, for many).
/// Pushes take it to their commits (group commit); the outbox to the messages the local API
/// queues and to the rows it records as sent or delivered.
///
/// Batches are formed in arrival order and written one after the other, so whatever follows a
/// write (acknowledgements, answers) follows it in arrival order too.
struct WriteCoalescer<Item> {
    /// Items received and not yet handed to a write.
    private(set) var waiting: [Item] = []
    /// The sum of `weigh` over `waiting` (a push's payload bytes; 0 when nothing is weighed).
    private(set) var waitingWeight = 0
    /// The batch being written now.
    private(set) var inFlight: [Item]?
    /// The most items one write takes; bounds the time a transaction holds the write lock.
    let maximumBatchSize: Int
    private let weigh: @Sendable (Item) -> Int

    init(maximumBatchSize: Int = .max, weigh: @escaping @Sendable (Item) -> Int = { _ in 0 }) {
        precondition(maximumBatchSize > 0, "a batch takes at least one item")
        self.maximumBatchSize = maximumBatchSize
        self.weigh = weigh
    }

    /// Nothing waiting and nothing being written.
    var isIdle: Bool { inFlight == nil && waiting.isEmpty }

    /// Items taken and not yet written: waiting or in flight.
    var unwrittenCount: Int { waiting.count + (inFlight?.count ?? 0) }

    mutating func received(_ item: Item) {
        waiting.append(item)
        waitingWeight += weigh(item)
    }

    mutating func received(contentsOf items: [Item]) {
        for item in items { received(item) }
    }

    /// The batch to write now, when no write is in flight and something waits.
    mutating func nextBatch() -> [Item]? {
        guard inFlight == nil, !waiting.isEmpty else { return nil }
        let batch: [Item]
        if waiting.count <= maximumBatchSize {
            // Hands the storage to the batch: a burst's large buffer is freed with its batch
            // instead of staying with an idle connection.
            batch = waiting
            waiting = []
            waitingWeight = 0
        } else {
            batch = Array(waiting.prefix(maximumBatchSize))
            waiting.removeFirst(maximumBatchSize)
            waitingWeight -= batch.reduce(0) { $0 + weigh($1) }
        }
        inFlight = batch
        return batch
    }

    /// The write in flight finished (whether it succeeded is the caller's to say): returns its
    /// batch, so that what follows it goes to each item in order.
    mutating func written() -> [Item] {
        defer { inFlight = nil }
        return inFlight ?? []
    }

    /// The write failed or its connection ended: nothing pending will be answered.
    mutating func abandon() {
        inFlight = nil
        waiting.removeAll()
        waitingWeight = 0
    }
}

extension WriteCoalescer: Sendable where Item: Sendable {}
