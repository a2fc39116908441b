// SPDX-License-Identifier: Apache-2.0

import CLinux

/// The names the daemon gives its threads (`top -H`, `ps -L`, `/proc/PID/task/*/comm`; at most
/// 15 bytes).
enum ThreadName: String {
    /// The push connection's event loop, which also commits.
    case push = "intrapush-push"
    /// The local API's and the metrics' event loop.
    case api = "intrapush-api"
    /// The local API's point reads and pages.
    case query = "intrapush-query"
    /// The local API's searches, a piece at a time.
    case scan = "intrapush-scan"
    /// The callers' names, from the user and group databases (a directory may be slow).
    case names = "intrapush-names"
    case checkpoint = "intrapush-ckpt"
    /// Where a burst's batch is synced while the push loop reads on.
    case walSync = "intrapush-sync"
    /// `on_notification`'s runs.
    case hook = "intrapush-hook"
    /// Gathering and rendering `/metrics` and `metrics_file`.
    case metrics = "intrapush-stats"
    /// getaddrinfo for the server's name.
    case resolver = "intrapush-dns"
    /// Reading the configuration on SIGHUP.
    case reload = "intrapush-conf"

    /// Names the calling thread.
    func apply() {
        _ = intrapush_name_thread(rawValue)
    }
}
