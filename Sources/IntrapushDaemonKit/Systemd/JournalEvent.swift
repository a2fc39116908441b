// SPDX-License-Identifier: Apache-2.0

import Logging

/// The events an operator acts on, each with the `MESSAGE_ID` the journal selects it by and an
/// entry in intrapush's journal catalog (packaging/intrapush.catalog, installed in
/// /usr/lib/systemd/catalog/), which `journalctl -x` shows beside it: what it means and what to
/// do. A log line is one of these when its metadata names it (`Logger.Metadata.event`).
enum JournalEvent: String, CaseIterable, Sendable {
    case connected
    case disconnected
    case tokenRejected = "token_rejected"
    case serverCertificateRefused = "server_certificate_refused"
    case failover
    case failback
    case commitFailed = "commit_failed"
    case commitStalled = "commit_stalled"
    case syncFailed = "sync_failed"
    case reloadRejected = "reload_rejected"
    case outboxGivenUp = "outbox_given_up"

    /// 128 bits, as `systemd-id128 new` makes them; never changed once released.
    var messageID: String {
        switch self {
        case .connected: "b27b58cf02fb40c28b68015b22b07b48"
        case .disconnected: "60f9d37668c94617a4a75fafc3f5ef57"
        case .tokenRejected: "d833799274bb465ab2f7cbfab06161d7"
        case .serverCertificateRefused: "16313163cd2b473180d60180252aaa63"
        case .failover: "0cc4a01a4f6f44f7947f4f2e5d108b0d"
        case .failback: "45b014b7e4104cab8111eab030b65324"
        case .commitFailed: "2899c2fad3d64794970a6319486716f9"
        case .commitStalled: "22f575aeac4842909371c02112f3d4b3"
        case .syncFailed: "360ca4050a2642138711d07c47e02f01"
        case .reloadRejected: "12aca4b8152a43f2bef19a68fdf4af2a"
        case .outboxGivenUp: "e8f1a51db3f54d738299d9e7f5c63118"
        }
    }
}

extension Logger.Metadata {
    /// The metadata of `event`, with its fields: each becomes a journal field `INTRAPUSH_<NAME>`
    /// (`server` → `INTRAPUSH_SERVER`), and `key=value` on a line where there is no journal.
    static func event(_ event: JournalEvent, _ fields: [String: String] = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["event": .string(event.rawValue)]
        for (name, value) in fields { metadata[name] = .string(value) }
        return metadata
    }
}
