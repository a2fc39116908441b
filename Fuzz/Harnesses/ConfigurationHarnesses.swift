// SPDX-License-Identifier: Apache-2.0

/// intrapush.conf: FlatTOML answers entries or a syntax error with a position inside the file.
func fuzzFlatTOML(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        _ = try FlatTOML.parse(text)
    } catch {
        require(error.line >= 1 && error.column >= 1, "an error says where")
        require(error.line <= text.utf8.count + 1, "the line is in the file")
    }
}

/// The values of settings read from text: durations, hosts, proxies, the host's identity.
func fuzzSettingValues(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if HostIdentity.problem(with: text) == nil {
        // Taken as host_id, it goes into a header and a path segment exactly as written.
        require(PathSegment.percentEncoded(text) == text, "an accepted host_id needs no encoding")
        require((1...HostIdentity.maximumLength).contains(text.utf8.count), "an accepted host_id has 1 to 64 bytes")
    }
    if let duration = DurationParser.parse(text) {
        require(duration >= .zero && duration <= DurationParser.longest, "a duration is in range")
        require(DurationParser.parse(DurationParser.format(duration)) == duration, "a duration reads back")
    }
    if case .success(let host) = HostAndPort.parse(text) {
        require(host.port.map { (1...65535).contains($0) } ?? true, "a port is in range")
    }
    if case .success(let proxy) = HTTPProxy.parse(text, source: "fuzz") {
        require((1...65535).contains(proxy.port), "a proxy port is in range")
        if proxy.credentials != nil {
            require(proxy.description.hasPrefix("http://***@"), "the credentials are shown as ***")
        }
    }
}

/// `on_notification`: split like sh, or refused with the reason; never a trap.
func fuzzHookCommandLine(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let command = try? HookCommandLine(parsing: text) {
        require(!command.arguments.isEmpty, "a command has a program")
    }
}
