// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOHTTP1
import NIOPosix

extension DevServerClient {
    /// Sends one request on a new connection and returns the answer, whatever its status.
    package func send(
        _ method: HTTPMethod, _ path: String, headers: [String: String] = [:], body: ByteBuffer = ByteBuffer()
    ) async throws -> Response {
        let channel = try await ClientBootstrap(group: eventLoopGroup).connect(host: host, port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                    wrappingChannelSynchronously: channel)
            }
        }
        var requestHeaders = HTTPHeaders()
        requestHeaders.add(name: "Host", value: ServerAddress(host: host, port: port).description)
        requestHeaders.add(name: "Content-Length", value: String(body.readableBytes))
        requestHeaders.add(name: "Connection", value: "close")
        for (name, value) in headers {
            requestHeaders.replaceOrAdd(name: name, value: value)
        }
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: requestHeaders)
        return try await channel.executeThenClose { inbound, outbound in
            let parts: [HTTPClientRequestPart] = [.head(head), .body(.byteBuffer(body)), .end(nil)]
            try await outbound.write(contentsOf: parts)
            var status: Int?
            var responseBody = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let responseHead):
                    status = Int(responseHead.status.code)
                case .body(var chunk):
                    responseBody.writeBuffer(&chunk)
                case .end:
                    guard let status else { break }
                    return Response(status: status, body: String(buffer: responseBody))
                }
            }
            throw DevServerError.connectionClosed(path: path)
        }
    }
}
