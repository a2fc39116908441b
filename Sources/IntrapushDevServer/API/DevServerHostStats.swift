// SPDX-License-Identifier: Apache-2.0

/// What `GET /stats` says of one host of an org.
package struct DevServerHostStats: Codable, Sendable, Equatable {
    package var org: String
    /// Its `Intrapush-Host`; empty for the org's clients that send none.
    package var host: String
    package var connected: Bool
    /// Connections it opened, and how many of them replaced one still open (closed with 4409).
    package var connections: Int
    package var replaced: Int
    /// Pushes sent to it, sent again included.
    package var deliveries: Int
    /// Pushes it acknowledged, waits for (sent, not acknowledged), and has waiting to be sent.
    package var acked: Int
    package var unacked: Int
    package var queued: Int

    package init(
        org: String, host: String, connected: Bool, connections: Int, replaced: Int, deliveries: Int, acked: Int,
        unacked: Int, queued: Int
    ) {
        self.org = org
        self.host = host
        self.connected = connected
        self.connections = connections
        self.replaced = replaced
        self.deliveries = deliveries
        self.acked = acked
        self.unacked = unacked
        self.queued = queued
    }
}
