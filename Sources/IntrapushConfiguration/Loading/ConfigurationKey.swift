// SPDX-License-Identifier: Apache-2.0

/// Every key `intrapush.conf` knows, as written in the file; the environment variable of each is
/// `INTRAPUSH_` + the key in upper case.
enum ConfigurationKey: String, CaseIterable, Sendable {
    case host
    case failbackInterval = "failback_interval"
    case org
    case client
    case hostID = "host_id"
    case tokenFile = "token_file"
    case token
    case tls
    case caFile = "ca_file"
    case tlsCertFile = "tls_cert_file"
    case tlsKeyFile = "tls_key_file"
    case tlsPins = "tls_pins"
    case proxy
    case path
    case heartbeatInterval = "heartbeat_interval"
    case heartbeatText = "heartbeat_text"
    case ackText = "ack_text"
    case idField = "id_field"
    case priorityField = "priority_field"
    case linkField = "link_field"
    case recipientsField = "recipients_field"
    case deadPeerTimeout = "dead_peer_timeout"
    case connectTimeout = "connect_timeout"
    case reconnectMin = "reconnect_min"
    case reconnectMax = "reconnect_max"
    case maxMessageSize = "max_message_size"
    case database
    case retentionDays = "retention_days"
    case retentionMaxRows = "retention_max_rows"
    case onNotification = "on_notification"
    case logLevel = "log_level"
    case headers
    case subprotocol
    case helloText = "hello_text"
    case upstreamIdField = "upstream_id_field"
    case upstreamAckText = "upstream_ack_text"
    case replyToField = "reply_to_field"
    case outboxWindow = "outbox_window"
    case outboxTTL = "outbox_ttl"
    case requestTimeout = "request_timeout"
    case readReceiptText = "read_receipt_text"
    case metricsListen = "metrics_listen"
    case metricsFile = "metrics_file"
    case readers

    static let environmentPrefix = "INTRAPUSH_"

    /// The keys of messages to the server (contract §7).
    static let outboxKeys: Set<ConfigurationKey> = [
        .upstreamIdField, .upstreamAckText, .replyToField, .outboxWindow, .outboxTTL, .requestTimeout, .readReceiptText,
    ]

    var environmentVariable: String { Self.environmentPrefix + rawValue.uppercased() }

    /// The key whose environment variable is `variable`, if any.
    init?(environmentVariable variable: String) {
        guard variable.hasPrefix(Self.environmentPrefix) else { return nil }
        self.init(rawValue: variable.dropFirst(Self.environmentPrefix.count).lowercased())
        // "INTRAPUSH_host" is not the variable of `host`; only the upper-case spelling is.
        guard environmentVariable == variable else { return nil }
    }

    /// Whether quoting the value in a message could give away a credential: the token, and the
    /// keys that may carry one (`Authorization` headers, a login frame).
    var isSecret: Bool { self == .token || self == .headers || self == .helloText || self == .proxy }
}
