// SPDX-License-Identifier: Apache-2.0

/// A message on the local API's socket, as anyone on the host may send it: a call or nothing,
/// never a trap; what parses encodes back to the same call, and JSON values survive their text.
func fuzzVarlinkMessage(_ bytes: [UInt8]) {
    if case .success(let call) = VarlinkCall.parse(bytes) {
        let again = VarlinkCall.parse(Array(call.encoded.dropLast()))
        require(again == .success(call), "a call that does not survive its encoding")
    }
    if let value = bytes.withUnsafeBufferPointer({ JSONValue.parse($0) }) {
        require(JSONValue.parse(value.text) == value, "a JSON value that does not survive its text")
    }
    // The clients' side: any bytes from the socket are a reply, or not one.
    if let reply = bytes.withUnsafeBufferPointer({ VarlinkReply.parse($0) }) {
        require(Array(reply.encoded.dropLast()).withUnsafeBufferPointer({ VarlinkReply.parse($0) }) == reply, "a reply that does not encode back")
    }
}

/// The proxy's answer to CONNECT: a head, more needed, or refused; never a trap.
func fuzzProxyResponseHead(_ bytes: [UInt8]) {
    if case .some(.some(let (head, length))) = try? ProxyResponseHead.parse(bytes) {
        require((100...599).contains(head.status), "a status in range")
        require(length <= bytes.count, "the head is in the bytes")
    }
}

/// Retry-After values and close reasons: a wait in [0, one day], and the backoff's answer to
/// it within its cap and never below its own draw.
func fuzzRetryHint(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let backoff = Backoff(minimum: .milliseconds(100), maximum: .seconds(60))
    for hint in [RetryHint.parseHeader(text, now: 1_795_420_800), RetryHint.parseCloseReason(code: 1013, reason: text)] {
        guard let hint else { continue }
        require(hint >= .zero && hint <= RetryHint.longest, "a hint in range")
        let jitter = Double(bytes.first ?? 0) / 255
        let wait = backoff.delay(afterHint: hint, attempt: Int(bytes.last ?? 1), hintJitter: jitter, attemptJitter: jitter)
        require(wait <= .seconds(600), "within ten times reconnect_max")
        require(wait >= backoff.delay(forAttempt: Int(bytes.last ?? 1), jitter: jitter), "never sooner than the backoff")
    }
    _ = RetryHint.imfFixdate(text)
}

/// rtnetlink messages as the kernel (or anything on the netlink socket) sends them.
func fuzzNetlink(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { NetlinkMessageParser.events(in: $0) }
}

/// What a read of an inotify descriptor returns (`intrapush follow`, the desktop agent): the
/// same answer however often it is asked, and never a read past the bytes.
func fuzzInotify(_ bytes: [UInt8]) {
    let names: Set<String> = ["notifications.sqlite3", "notifications.sqlite3-wal"]
    let first = bytes.withUnsafeBytes { InotifyEventScanner.concerns(names, in: $0) }
    require(first == bytes.withUnsafeBytes { InotifyEventScanner.concerns(names, in: $0) }, "deterministic")
}

/// A certificate's names against a host: a match only for an equal name or a one-label wildcard.
func fuzzServerName(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1).map(String.init)
    guard parts.count == 2 else { return }
    if ServerNameCheck.isProven(host: parts[0], byDNSNames: [parts[1]]) {
        require(!parts[0].isEmpty && (parts[1].lowercased().hasPrefix("*.") || parts[0].lowercased().trimmingSuffix(".") == parts[1].lowercased().trimmingSuffix(".")),
                "only an equal name or a wildcard proves a host")
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// `tls_pins`: base64 decodes only what encodes back to the same bytes, and the SHA-256 of any
/// input is 32 bytes whose encoding decodes back to them.
func fuzzTLSPin(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = Base64.decode(text) {
        require(Base64.decode(Base64.encode(decoded)) == decoded, "decode(encode(decode(x))) differs")
        require(decoded.count <= text.utf8.count / 4 * 3, "decoded more bytes than the text can hold")
    }
    require(Base64.decode(Base64.encode(bytes)) == bytes, "encode then decode lost bytes")
    let digest = SHA256.hash(bytes)
    require(digest.count == 32, "a digest of \(digest.count) bytes")
    require(Base64.encode(digest).utf8.count == 44, "a pin that is not 44 characters")
}

/// The local API's generated types, as the daemon reads a call and a client reads a reply: the
/// bytes as every method's parameters (strictly) and reply (leniently); what is taken encodes
/// back to what is taken again, the same. As a call, each interface's decoder takes it or names
/// an error `org.varlink.service` declares; never a trap.
func fuzzLocalAPI(_ bytes: [UInt8]) {
    guard let value = bytes.withUnsafeBufferPointer({ JSONValue.parse($0) }) else { return }
    for method in LocalAPIInterfaces.methods { checkRoundTrip(method, value) }
    guard case .success(let call) = VarlinkCall.parse(bytes) else { return }
    let failures = [
        DaemonInterface.Call.decode(call).failure, NotificationsInterface.Call.decode(call).failure,
        OutboxInterface.Call.decode(call).failure, VarlinkServiceInterface.Call.decode(call).failure,
    ]
    for case let failure? in failures {
        require(VarlinkServiceInterface.Failure.names.contains(failure.varlinkError.name), "an undeclared error \(failure)")
    }
}

private func checkRoundTrip<Method: VarlinkMethod>(_ method: Method.Type, _ value: JSONValue) {
    if let parameters = try? Method.Parameters(varlink: value, at: "", strict: true) {
        require((try? Method.Parameters(varlink: parameters.varlinkJSON, at: "", strict: true)) == parameters, "\(method) parameters round trip")
    }
    if let reply = try? Method.Reply(varlink: value, at: "", strict: false) {
        require((try? Method.Reply(varlink: reply.varlinkJSON, at: "", strict: true)) == reply, "\(method) reply round trip")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
