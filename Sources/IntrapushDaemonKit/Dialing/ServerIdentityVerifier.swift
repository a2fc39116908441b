// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import NIOCore
import NIOSSL
import NIOTLS

/// Holds every write until the TLS handshake is done and the server's certificate proves the
/// configured name (`ServerNameCheck`) and, with `tls_pins`, carries a pinned key: NIOSSL has
/// verified the chain by then, but its own name check also takes an IP address SAN or the common
/// name. Nothing, the upgrade request with the token in its path least of all, reaches a server
/// that has not proven it is the one meant.
///
/// Sits right behind `NIOSSLClientHandler`, when the host is a DNS name or pins are set.
final class ServerIdentityVerifier: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    /// The configured host when it is a DNS name; `nil` for an IP address, which NIOSSL checks.
    let host: String?
    /// Base64 SHA-256 digests of the SubjectPublicKeyInfo the server's certificate may carry.
    let pins: [String]
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var isFlushHeld = false
    private var isOpen = false

    init(host: String?, pins: [String]) {
        self.host = host
        self.pins = pins
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard isOpen else { return held.append((data, promise)) }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard isOpen else { return isFlushHeld = true }
        context.flush()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted = tlsEvent {
            let leaf = (try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self))?.peerCertificate
            if let refusal = Self.refusal(of: leaf, host: host, pins: pins) {
                failHeld(refusal)
                context.fireErrorCaught(refusal)
                context.close(promise: nil)
                return
            }
            isOpen = true
            for (data, promise) in held { context.write(data, promise: promise) }
            held = []
            if isFlushHeld { context.flush() }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failHeld(ChannelError.ioOnClosedChannel)
    }

    private func failHeld(_ error: any Error) {
        let promises = held.compactMap(\.1)
        held = []
        for promise in promises { promise.fail(error) }
    }

    /// Why `leaf` does not prove the server, or `nil` when it does.
    static func refusal(of leaf: NIOSSLCertificate?, host: String?, pins: [String]) -> ServerIdentityError? {
        if let host {
            let names = leaf.map(dnsNames(of:)) ?? []
            guard ServerNameCheck.isProven(host: host, byDNSNames: names) else { return .nameNotProven(host: host, names: names) }
        }
        guard !pins.isEmpty else { return nil }
        let pin = leaf.flatMap { try? $0.extractPublicKey().toSPKIBytes() }.map { Base64.encode(SHA256.hash($0)) }
        guard let pin, pins.contains(pin) else { return .pinMismatch(pin: pin) }
        return nil
    }

    static func dnsNames(of certificate: NIOSSLCertificate) -> [String] {
        certificate._subjectAlternativeNames().compactMap { name in
            guard name.nameType == .dnsName else { return nil }
            return String(decoding: name.contents, as: UTF8.self)
        }
    }
}

/// The server's certificate does not prove the configured name.
struct ServerIdentityError: Error, Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        case nameNotProven
        case pinMismatch
    }

    var kind: Kind
    var detail: String

    static func nameNotProven(host: String, names: [String]) -> Self {
        let held = names.isEmpty ? "no DNS name at all" : "only " + names.prefix(4).joined(separator: ", ")
        return ServerIdentityError(
            kind: .nameNotProven,
            detail: "the server's certificate does not name \(host) (it names \(held)); an IP address or the common name does not prove a name: check host, or have the certificate issued with \(host) as a DNS name")
    }

    static func pinMismatch(pin: String?) -> Self {
        let carried = pin.map { "its key's pin is pin-sha256:\($0)" } ?? "its key could not be read"
        return ServerIdentityError(
            kind: .pinMismatch,
            detail: "the server's certificate carries none of the keys in tls_pins (\(carried)); if its key was changed on purpose, add the new pin, else someone else answers for the server")
    }

    var description: String { detail }
}
