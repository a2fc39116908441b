// SPDX-License-Identifier: Apache-2.0

import Logging

extension SessionService {
    /// Starts watching the network: each change the kernel reports is hopped from the
    /// monitor's thread into the session's event stream. Nil when the monitor cannot be set up
    /// (no `AF_NETLINK` under a seccomp filter, say): the daemon then keeps the plain backoff.
    func startNetworkMonitor() -> NetlinkMonitor? {
        let monitor: NetlinkMonitor
        do {
            monitor = try NetlinkMonitor { [weak self] change in self?.send(.networkChanged(change)) }
        } catch {
            logger.warning("\(error)")
            return nil
        }
        monitor.start()
        return monitor
    }
}
