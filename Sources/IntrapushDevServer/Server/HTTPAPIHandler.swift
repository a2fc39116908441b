// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Collects each HTTP request that was not upgraded to a WebSocket and answers it with ``APIRouter``.
final class HTTPAPIHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The name under which the handler sits in the pipeline, so a successful upgrade can remove it.
    static let name = "intrapush-devserver.http-api"

    private let router: APIRouter
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(hub: Hub) {
        router = APIRouter(hub: hub)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = context.channel.allocator.buffer(capacity: 0)
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refused upgrade is reported here before the request is passed on to be answered.
        if error is NIOWebSocketUpgradeError {
            return
        }
        router.hub.logger.debug("HTTP connection failed: \(error)")
        context.close(promise: nil)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let response = router.response(to: head, body: body, allocator: context.channel.allocator)
        body = ByteBuffer()
        let responseBody = context.channel.allocator.buffer(string: response.body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(responseBody.readableBytes))
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        if !head.isKeepAlive {
            headers.add(name: "Connection", value: "close")
        }
        let responseHead = HTTPResponseHead(version: head.version, status: response.status, headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(responseBody))), promise: nil)
        let sent = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            sent.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
