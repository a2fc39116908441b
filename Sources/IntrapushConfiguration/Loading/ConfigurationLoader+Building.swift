// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
extension ConfigurationLoader {
    /// Reads and validates every key, falling back to the default wherever a value is missing or bad.
    func makeConfiguration(reader: inout SettingReader, purpose: Purpose, warnings: inout [String]) -> Configuration {
        let hosts = serverHosts(reader: &reader)
        let host = hosts.first
        let failbackInterval = reader.duration(.failbackInterval, allowsZero: true) ?? Configuration.Defaults.failbackInterval
        let org = required(.org, reader: &reader, hint: #"set org = "your organisation""#)
        let heartbeatInterval = reader.duration(.heartbeatInterval) ?? Configuration.Defaults.heartbeatInterval
        let deadPeerTimeout = reader.duration(.deadPeerTimeout)
        if let deadPeerTimeout, deadPeerTimeout <= heartbeatInterval {
            reader.reject(
                .deadPeerTimeout,
                "must be greater than heartbeat_interval (\(DurationParser.format(heartbeatInterval)))")
        }
        let parsedMin = reader.duration(.reconnectMin)
        let parsedMax = reader.duration(.reconnectMax)
        let reconnectMin = parsedMin ?? Configuration.Defaults.reconnectMin
        let reconnectMax = parsedMax ?? Configuration.Defaults.reconnectMax
        // Comparing with a value already reported as bad would only add noise.
        let bothUsable = (parsedMin != nil || !reader.isSet(.reconnectMin)) && (parsedMax != nil || !reader.isSet(.reconnectMax))
        if bothUsable, reconnectMax < reconnectMin {
            let blamed: ConfigurationKey = reader.isSet(.reconnectMax) ? .reconnectMax : .reconnectMin
            reader.reject(
                blamed,
                "reconnect_max (\(DurationParser.format(reconnectMax))) must not be less than reconnect_min (\(DurationParser.format(reconnectMin)))")
        }
        let token = purpose == .daemon ? resolveToken(reader: &reader, warnings: &warnings) : (Secret(""), "not read")
        let headers = handshakeHeaders(reader: &reader)
        if headers.contains(where: { $0.value.contains("{token}") }),
            token.0.value.unicodeScalars.contains(where: \.isControlCharacter)
        {
            reader.report(.headers, "uses {token}, but the token has control characters, which a header cannot carry")
        }

        let upstreamIDField = nonEmpty(.upstreamIdField, reader: &reader) ?? Configuration.Defaults.idField
        // TLS unless tls = false is written: the one exception is a server on this machine,
        // which nothing on a network sees (the devserver of the demo and the tests).
        let tls = reader.bool(.tls) ?? !Configuration.everyHostIsLocal(hosts)
        let pathTemplate = pathTemplate(reader: &reader)
        let helloText = optionalText(.helloText, reader: &reader)
        let tokenTravels = pathTemplate.contains("{token}") || helloText?.contains("{token}") == true
            || headers.contains(where: { $0.value.contains("{token}") })
        for host in hosts where purpose == .daemon && !tls && tokenTravels {
            if case .success(let parsed) = HostAndPort.parse(host), !parsed.isLoopback {
                warnings.append(
                    "the token travels in clear to \(parsed.name): tls = false sends it unencrypted, readable by anyone on the path; set tls = true")
            }
        }

        return Configuration(
            host: host ?? "",
            fallbackHosts: Array(hosts.dropFirst()),
            failbackInterval: failbackInterval == .zero ? nil : failbackInterval,
            org: org ?? "",
            client: nonEmpty(.client, reader: &reader) ?? Configuration.Defaults.client,
            hostIdentity: hostIdentity(reader: &reader, purpose: purpose),
            token: token.0,
            tokenSource: token.1,
            tls: tls,
            caFile: caFile(reader: &reader, purpose: purpose),
            clientIdentity: clientIdentity(reader: &reader, purpose: purpose, usesTLS: tls, warnings: &warnings),
            tlsPins: tlsPins(reader: &reader, usesTLS: tls),
            proxy: proxy(reader: &reader, usesTLS: tls, host: host),
            pathTemplate: pathTemplate,
            heartbeatInterval: heartbeatInterval,
            heartbeatText: nonEmpty(.heartbeatText, reader: &reader) ?? Configuration.Defaults.heartbeatText,
            ackText: nonEmpty(.ackText, reader: &reader) ?? Configuration.Defaults.ackText,
            idField: nonEmpty(.idField, reader: &reader) ?? Configuration.Defaults.idField,
            priorityField: nonEmpty(.priorityField, reader: &reader) ?? Configuration.Defaults.priorityField,
            linkField: nonEmpty(.linkField, reader: &reader) ?? Configuration.Defaults.linkField,
            recipientsField: nonEmpty(.recipientsField, reader: &reader) ?? Configuration.Defaults.recipientsField,
            deadPeerTimeout: deadPeerTimeout.flatMap { $0 > heartbeatInterval ? $0 : nil },
            connectTimeout: reader.duration(.connectTimeout) ?? Configuration.Defaults.connectTimeout,
            reconnectMin: reconnectMin,
            reconnectMax: max(reconnectMin, reconnectMax),
            maxMessageSize: maxMessageSize(reader: &reader),
            database: database(reader: &reader),
            retentionDays: nonNegative(.retentionDays, reader: &reader) ?? Configuration.Defaults.retentionDays,
            retentionMaxRows: nonNegative(.retentionMaxRows, reader: &reader)
                ?? Configuration.Defaults.retentionMaxRows,
            onNotification: hookCommand(reader: &reader),
            logLevel: logLevel(reader: &reader),
            headers: headers,
            subprotocol: subprotocol(reader: &reader),
            helloText: helloText,
            upstreamIDField: upstreamIDField,
            upstreamAckText: upstreamAckText(reader: &reader),
            replyToField: nonEmpty(.replyToField, reader: &reader) ?? upstreamIDField,
            outboxWindow: outboxWindow(reader: &reader),
            outboxTTL: outboxTTL(reader: &reader),
            requestTimeout: reader.duration(.requestTimeout) ?? Configuration.Defaults.requestTimeout,
            readReceiptText: readReceiptText(reader: &reader),
            metricsListen: metricsListen(reader: &reader),
            metricsFile: metricsFile(reader: &reader, purpose: purpose),
            everyoneReads: everyoneReads(reader: &reader)
        )
    }

    /// `$STATE_DIRECTORY/notifications.sqlite3` under systemd's `StateDirectory=`, else
    /// `/var/lib/intrapush/notifications.sqlite3`.
    var defaultDatabase: String {
        // systemd lists one path per StateDirectory= entry, separated by ':'; ours is the first.
        if let directory = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !directory.isEmpty {
            return "\(directory)/notifications.sqlite3"
        }
        return Configuration.Defaults.database
    }

    /// `host`: one server, or a list (in the environment, separated by commas or lines), each
    /// `name[:port]`, none twice.
    private func serverHosts(reader: inout SettingReader) -> [String] {
        guard reader.isSet(.host) else {
            reader.report(.host, "required; set host = \"name[:port]\" (or a list of them) in the configuration file or \(ConfigurationKey.host.environmentVariable)")
            return []
        }
        let written: [String]
        switch reader.rawValue(.host) {
        case .strings(let list)?:
            written = list
        case .environment(let text)?:
            written = text.split(whereSeparator: { $0 == "," || $0.isNewline }).map { String(String($0).trimmingWhitespace()) }
                .filter { !$0.isEmpty }
        default:
            guard let one = nonEmpty(.host, reader: &reader) else { return [] }
            written = [one]
        }
        guard !written.isEmpty else {
            reader.reject(.host, "must name at least one server")
            return []
        }
        guard written.count <= Configuration.Defaults.maximumHosts else {
            reader.reject(.host, "names \(written.count) servers; at most \(Configuration.Defaults.maximumHosts)")
            return []
        }
        var seen: Set<String> = []
        for host in written {
            switch HostAndPort.parse(host) {
            case .failure(let error):
                reader.reject(.host, written.count > 1 ? "\(host): \(error.reason)" : error.reason)
                return []
            case .success(let parsed):
                let key = "\(parsed.name.lowercased()):\(parsed.port.map(String.init) ?? "")"
                guard seen.insert(key).inserted else {
                    reader.reject(.host, "names \(host) twice")
                    return []
                }
            }
        }
        return written
    }

    private func required(_ key: ConfigurationKey, reader: inout SettingReader, hint: String) -> String? {
        guard reader.isSet(key) else {
            reader.report(key, "required; \(hint) in the configuration file or \(key.environmentVariable)")
            return nil
        }
        return nonEmpty(key, reader: &reader)
    }

    func nonEmpty(_ key: ConfigurationKey, reader: inout SettingReader) -> String? {
        guard let value = reader.string(key) else { return nil }
        guard !value.trimmingWhitespace().isEmpty else {
            reader.reject(key, "must not be empty")
            return nil
        }
        return value
    }

    private func nonNegative(_ key: ConfigurationKey, reader: inout SettingReader) -> Int? {
        guard let value = reader.integer(key) else { return nil }
        guard value >= 0 else {
            reader.reject(key, "must be 0 or more")
            return nil
        }
        return value
    }

    /// The command line as written, once it splits into a program and its arguments; empty is unset
    /// (so that `INTRAPUSH_ON_NOTIFICATION=` turns off a hook the file sets).
    private func hookCommand(reader: inout SettingReader) -> String? {
        guard let text = reader.string(.onNotification), !text.isEmpty else { return nil }
        do {
            _ = try HookCommandLine(parsing: text)
        } catch {
            reader.reject(.onNotification, error.message)
            return nil
        }
        return text
    }

    /// Every `headers` item checked; a bad one is reported by its position and name, never its value.
    private func handshakeHeaders(reader: inout SettingReader) -> [HandshakeHeader] {
        guard let lines = reader.strings(.headers, example: #"["Authorization: Bearer {token}"]"#) else { return [] }
        var headers: [HandshakeHeader] = []
        for (index, line) in lines.enumerated() {
            switch HandshakeHeader.parse(line) {
            case .success(let header): headers.append(header)
            case .failure(let problem): reader.report(.headers, "item \(index + 1) \(problem.message)")
            }
        }
        return headers
    }

    /// One subprotocol name; empty is unset (so that the environment can turn off the file's).
    private func subprotocol(reader: inout SettingReader) -> String? {
        guard let name = reader.string(.subprotocol), !name.isEmpty else { return nil }
        guard name.unicodeScalars.allSatisfy(\.isHTTPTokenCharacter) else {
            reader.reject(
                .subprotocol, "must be one subprotocol name: letters, digits and !#$%&'*+-.^_`|~, no spaces or commas")
            return nil
        }
        return name
    }

    /// `pin-sha256:BASE64` (RFC 7469's pin, as a TOML string): the digests, checked; at least
    /// two different ones, so that the server's key can be rolled without locking hosts out.
    private func tlsPins(reader: inout SettingReader, usesTLS: Bool) -> [String] {
        let example = #"["pin-sha256:BASE64…=", "pin-sha256:BASE64…="]"#
        guard let items = reader.strings(.tlsPins, example: example) else { return [] }
        let pins = items.flatMap { $0.split(separator: ",") }.map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
        guard !pins.isEmpty else { return [] }
        var digests: [String] = []
        for (index, pin) in pins.enumerated() {
            let digest = pin.hasPrefix("pin-sha256:") ? String(pin.dropFirst("pin-sha256:".count)) : ""
            guard let bytes = Base64.decode(digest), bytes.count == 32 else {
                reader.report(.tlsPins, "item \(index + 1) is not pin-sha256: followed by the base64 of a SHA-256 digest (44 characters); make one with: openssl x509 -in server.pem -noout -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64")
                return []
            }
            // Kept as the canonical encoding, the one the connection compares with: base64 with
            // stray bits in its last digit decodes to the same digest but spells it differently.
            let canonical = Base64.encode(bytes)
            if !digests.contains(canonical) { digests.append(canonical) }
        }
        guard digests.count >= 2 else {
            reader.report(.tlsPins, "needs at least two different pins: the server's key and its next one (or a backup), so that the key can be changed without locking every host out")
            return []
        }
        if !usesTLS { reader.report(.tlsPins, "pins a TLS server's key and needs tls = true") }
        return digests
    }

    /// A string where empty means unset.
    private func optionalText(_ key: ConfigurationKey, reader: inout SettingReader) -> String? {
        guard let text = reader.string(key), !text.isEmpty else { return nil }
        return text
    }

    private func caFile(reader: inout SettingReader, purpose: Purpose) -> String? {
        guard let path = reader.string(.caFile), !path.isEmpty else { return nil }
        if purpose == .daemon, let failure = FileReader.checkReadable(atPath: path) {
            reader.report(.caFile, "cannot read \(path): \(failure.reason)")
        }
        return path
    }

    private func pathTemplate(reader: inout SettingReader) -> String {
        guard let template = reader.string(.path) else { return Configuration.Defaults.pathTemplate }
        guard template.hasPrefix("/") else {
            reader.reject(.path, "must start with /")
            return Configuration.Defaults.pathTemplate
        }
        guard !template.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
        else {
            reader.reject(.path, "must not contain white space or control characters")
            return Configuration.Defaults.pathTemplate
        }
        let known: Set<Substring> = ["{client}", "{org}", "{token}", "{host}"]
        if let unknown = template.ranges(of: /\{[^}]*\}/).map({ template[$0] }).first(where: { !known.contains($0) }) {
            reader.reject(.path, "unknown placeholder \(unknown); the path may use {client}, {org}, {host} and {token}")
            return Configuration.Defaults.pathTemplate
        }
        return template
    }

    private func maxMessageSize(reader: inout SettingReader) -> Int {
        guard let size = reader.byteCount(.maxMessageSize) else { return Configuration.Defaults.maxMessageSize }
        guard (1024...(64 << 20)).contains(size) else {
            reader.reject(.maxMessageSize, "must be from 1024 bytes to 64 MiB")
            return Configuration.Defaults.maxMessageSize
        }
        return size
    }

    /// `readers`: who may read their own notifications through the local API.
    private func everyoneReads(reader: inout SettingReader) -> Bool {
        switch reader.string(.readers) {
        case nil, "group": return false
        case "everyone": return true
        default:
            reader.reject(.readers, "expected group (members of the group intrapush) or everyone (every local user)")
            return false
        }
    }

    private func logLevel(reader: inout SettingReader) -> LogLevel {
        guard let text = reader.string(.logLevel) else { return .info }
        guard let level = LogLevel(rawValue: text.lowercased()) else {
            reader.reject(.logLevel, "expected debug, info, warning or error")
            return .info
        }
        return level
    }
}
