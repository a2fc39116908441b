// SPDX-License-Identifier: Apache-2.0

extension Configuration {
    /// The effective configuration as TOML, every key in the documented order, for
    /// `intrapushd --check-config`: durations with units (`"10s"`, `"250ms"`), unset optional keys
    /// commented out, the token as `"***"` and its source as a comment. With `sources` (the
    /// loader's), each key says where its value came from: a file and line, the environment, or
    /// its default.
    package func rendered(sources: [String: String]? = nil) -> String {
        var lines: [String] = []
        func add(_ key: String, _ value: String) {
            guard let sources else { return lines.append("\(key) = \(value)") }
            lines.append("\(key) = \(value)  # \(sources[key] ?? "default")")
        }
        func add(_ key: String, string value: String) { add(key, quoted(value)) }
        func add(_ key: String, duration value: Duration) { add(key, quoted(DurationParser.format(value))) }

        if hosts.count > 1 {
            add("host", "[" + hosts.map(quoted).joined(separator: ", ") + "]")
            if let failbackInterval {
                add("failback_interval", duration: failbackInterval)
            } else {
                add("failback_interval", "0")
            }
        } else {
            add("host", string: host)
        }
        add("org", string: org)
        add("client", string: client)
        switch hostIdentity?.origin {
        case .configured?: add("host_id", string: hostIdentity!.value)
        case .machine?: lines.append("# host_id: \(hostIdentity!.value), derived from this machine's id for intrapush")
        case nil: lines.append("# host_id: unknown")
        }
        lines.append("# token from \(tokenSource)")
        add("token", string: "***")
        if let sources, sources["tls"] == nil {
            let why = tls ? "wss unless tls = false is written" : "ws: every server is on this machine"
            lines.append("tls = \(tls)  # default: \(why)")
        } else {
            add("tls", String(tls))
        }
        if let caFile { add("ca_file", string: caFile) } else { lines.append("# ca_file: the system trust store") }
        if let clientIdentity {
            add("tls_cert_file", string: clientIdentity.certificateFile)
            add("tls_key_file", string: clientIdentity.keyFile)
        } else {
            lines.append("# tls_cert_file, tls_key_file: unset (no client certificate)")
        }
        if tlsPins.isEmpty {
            lines.append("# tls_pins: unset (any key the trust store vouches for)")
        } else {
            add("tls_pins", "[" + tlsPins.map { quoted("pin-sha256:" + $0) }.joined(separator: ", ") + "]")
        }
        if let proxy {
            add("proxy", string: proxy.description)
            if proxy.source != "proxy" { lines.append("# the proxy comes from \(proxy.source) in the environment") }
        } else {
            lines.append("# proxy: none (direct)")
        }
        add("path", string: pathTemplate)
        add("heartbeat_interval", duration: heartbeatInterval)
        add("heartbeat_text", string: heartbeatText)
        add("ack_text", string: ackText)
        add("id_field", string: idField)
        add("priority_field", string: priorityField)
        add("link_field", string: linkField)
        add("recipients_field", string: recipientsField)
        add("dead_peer_timeout", duration: deadPeerTimeout)
        add("connect_timeout", duration: connectTimeout)
        add("reconnect_min", duration: reconnectMin)
        add("reconnect_max", duration: reconnectMax)
        add("max_message_size", String(maxMessageSize))
        add("database", string: database)
        add("retention_days", String(retentionDays))
        add("retention_max_rows", String(retentionMaxRows))
        if let onNotification {
            add("on_notification", string: onNotification)
            // How it splits: what runs, with no shell and nothing substituted.
            if let hookCommand { lines.append("# on_notification runs: \(hookCommand)") }
        } else {
            lines.append("# on_notification: unset")
        }
        add("log_level", string: logLevel.rawValue)
        // {token} reads *** wherever the daemon shows these, as in the URL.
        if headers.isEmpty {
            lines.append("# headers: none")
        } else {
            let items = headers.map { quoted("\($0.name): \($0.value.replacing("{token}", with: "***"))") }
            add("headers", "[" + items.joined(separator: ", ") + "]")
        }
        if let subprotocol { add("subprotocol", string: subprotocol) } else { lines.append("# subprotocol: unset") }
        if let helloText {
            add("hello_text", string: helloText.replacing("{token}", with: "***"))
        } else {
            lines.append("# hello_text: unset")
        }
        add("upstream_id_field", string: upstreamIDField)
        add("upstream_ack_text", string: upstreamAckText ?? "")
        if upstreamAckText == nil { lines.append("# the server does not acknowledge: a message is delivered once written") }
        add("reply_to_field", string: replyToField)
        add("outbox_window", String(outboxWindow))
        if let outboxTTL { add("outbox_ttl", duration: outboxTTL) } else { add("outbox_ttl", "0") }
        add("request_timeout", duration: requestTimeout)
        if let readReceiptText {
            add("read_receipt_text", string: readReceiptText)
        } else {
            lines.append("# read_receipt_text: unset")
        }
        if let metricsListen { add("metrics_listen", string: metricsListen.description) } else { lines.append("# metrics_listen: unset") }
        if let metricsFile { add("metrics_file", string: metricsFile) } else { lines.append("# metrics_file: unset") }
        add("readers", string: everyoneReads ? "everyone" : "group")
        lines.append("# local API socket (from database): \(localAPISocket)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A TOML basic string: backslash, quote and control characters escaped.
    private func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
