// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushSupport
import NIOCore

/// Opens a tunnel through an HTTP proxy: sends `CONNECT host:port`, waits for a 2xx, then takes
/// itself out of the pipeline, so that TLS and the WebSocket handshake run inside the tunnel.
final class ProxyTunnelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    static let name = "proxy-tunnel"

    private let request: [UInt8]
    private let promise: EventLoopPromise<Void>
    private var received: [UInt8] = []
    private var isDone = false

    /// `authority` is `host:port` of the server (IPv6 bracketed); `credentials` `user:password`.
    init(authority: String, credentials: Secret?, promise: EventLoopPromise<Void>) {
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials {
            text += "Proxy-Authorization: Basic \(Base64.encode(Array(credentials.value.utf8)))\r\n"
        }
        text += "\r\n"
        self.request = Array(text.utf8)
        self.promise = promise
    }

    var tunnelOpened: EventLoopFuture<Void> { promise.futureResult }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)
        context.fireChannelActive()
    }

    private var isSent = false
    private func sendRequest(context: ChannelHandlerContext) {
        guard !isSent else { return }
        isSent = true
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isDone else { return }
        received += unwrapInboundIn(data).readableBytesView
        do {
            guard let (head, length) = try ProxyResponseHead.parse(received) else { return }
            isDone = true
            guard (200...299).contains(head.status) else { throw ProxyTunnelError.refused(status: head.status) }
            guard received.count == length else { throw ProxyTunnelError.unexpectedData }
            promise.succeed()
        } catch {
            isDone = true
            promise.fail(error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !isDone {
            isDone = true
            promise.fail(ProxyTunnelError.closed)
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if !isDone { promise.fail(ProxyTunnelError.closed) }
    }
}
