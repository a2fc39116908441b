// SPDX-License-Identifier: Apache-2.0

import CLinux

/// How the daemon's C heap behaves, so that an idle daemon after a burst is as small as before.
enum HeapPolicy {
    /// Allocations at least this large get their own mapping, returned to the kernel when freed.
    ///
    /// glibc raises its mmap threshold each time such a block is freed, after which batch-sized
    /// arrays come from the heap and leave it fragmented; a fixed threshold stops that. Receive
    /// buffers (at most 64 KiB) stay below it, so the hot path makes no extra system calls.
    static let mappedAllocationThreshold: Int32 = 256 << 10

    /// Applies the policy; call once at start, before the threads that allocate exist.
    ///
    /// One arena: `malloc_trim` gives back the top of the main heap but not the top of the
    /// per-thread arenas, where a burst's memory otherwise stayed, and varied from run to run.
    /// Most small allocations never take the arena's lock (glibc's per-thread cache), so ingest
    /// is as fast with one arena (docs/performance.md has the figures).
    static func apply() {
        _ = mallopt(M_ARENA_MAX, 1)
        _ = mallopt(M_MMAP_THRESHOLD, mappedAllocationThreshold)
    }
}
