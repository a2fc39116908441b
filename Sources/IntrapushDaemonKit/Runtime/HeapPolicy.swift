import CLinux

/// How the daemon's C heap behaves, so that an idle daemon after a burst is as small as before.
package enum HeapPolicy {
    /// Allocations at least this large get their own mapping, returned to the kernel when freed.
    ///
    /// glibc raises its mmap threshold each time such a block is freed, after which batch-sized
    /// arrays come from the heap and leave it fragmented; a fixed threshold stops that. Receive
    /// buffers (at most 64 KiB) stay below it, so the hot path makes no extra system calls.
    package static let mappedAllocationThreshold: Int32 = 256 << 10

    /// Applies the policy; call once at start, before the threads that allocate exist.
    ///
    /// One arena: `malloc_trim` gives back the top of the main heap but not the top of the
    /// per-thread arenas, where a burst's memory otherwise stayed (idle RssAnon after 100,000
    /// pushes: 3.4–5.1 MiB with an arena per thread, 3.3 MiB in every run with one). Most small
    /// allocations never take the arena's lock (glibc's per-thread cache); ingest measured the
    /// same, 113,000 pushes/s either way.
    package static func apply() {
        _ = mallopt(M_ARENA_MAX, 1)
        _ = mallopt(M_MMAP_THRESHOLD, mappedAllocationThreshold)
    }
}
