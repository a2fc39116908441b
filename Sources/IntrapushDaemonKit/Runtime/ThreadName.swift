import CLinux

/// The names the daemon gives its threads (`top -H`, `ps -L`, `/proc/PID/task/*/comm`): NIO's
/// pools all call theirs "TP-#0".
enum ThreadName: String {
    /// The push connection's event loop, which also commits.
    case push = "intrapush-push"
    /// The local API's and the metrics' event loop.
    case api = "intrapush-api"
    case query = "intrapush-query"
    case checkpoint = "intrapush-ckpt"
    /// Where a burst's batch is synced while the push loop reads on.
    case walSync = "intrapush-sync"

    /// Names the calling thread.
    func apply() {
        _ = intrapush_name_thread(rawValue)
    }
}
