import NIOCore
import NIOSSL
import NIOTLS

/// Holds every write until the TLS handshake is done and the server's certificate proves the
/// configured name (`ServerNameCheck`): NIOSSL has verified the chain by then, but its own name
/// check also takes an IP address SAN or the common name. Nothing, the upgrade request with the
/// token in its path least of all, reaches a server that has not proven it is the one meant.
///
/// Sits right behind `NIOSSLClientHandler`, only when the host is a DNS name.
final class ServerIdentityGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    let host: String
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var isFlushHeld = false
    private var isOpen = false

    init(host: String) {
        self.host = host
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
            let names = (try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self))?.peerCertificate
                .map(Self.dnsNames(of:)) ?? []
            guard ServerNameCheck.isProven(host: host, byDNSNames: names) else {
                let error = ServerIdentityError.nameNotProven(host: host, names: names)
                failHeld(error)
                context.fireErrorCaught(error)
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
    }

    var kind: Kind
    var detail: String

    static func nameNotProven(host: String, names: [String]) -> Self {
        let held = names.isEmpty ? "no DNS name at all" : "only " + names.prefix(4).joined(separator: ", ")
        return ServerIdentityError(
            kind: .nameNotProven,
            detail: "the server's certificate does not name \(host) (it names \(held)); an IP address or the common name does not prove a name: check host, or have the certificate issued with \(host) as a DNS name")
    }

    var description: String { detail }
}
