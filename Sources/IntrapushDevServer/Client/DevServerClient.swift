// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// Talks to a running ``DevServer`` over its HTTP API, for tests, the demo and the CLI.
///
/// Each call opens its own HTTP/1.1 connection and closes it after the answer.
package struct DevServerClient: Sendable {
    /// An HTTP answer as received.
    package struct Response: Sendable {
        /// The HTTP status code.
        package var status: Int
        /// The body, decoded as UTF-8 (JSON for every endpoint of the API).
        package var body: String
    }

    package var host: String
    package var port: Int
    let eventLoopGroup: any EventLoopGroup

    package init(host: String, port: Int, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.host = host
        self.port = port
        self.eventLoopGroup = eventLoopGroup
    }

    package init(_ address: ServerAddress) {
        self.init(host: address.host, port: address.port)
    }

    /// Queues a text push for `org` (the server's default org when `nil`); returns its sequence number.
    @discardableResult
    package func push(_ body: String, org: String? = nil, host: String? = nil) async throws -> Int {
        try await queue(ByteBuffer(string: body), contentType: "application/json", org: org, host: host)
    }

    /// Queues a push that is sent as a binary frame; returns its sequence number.
    @discardableResult
    package func pushBinary(_ bytes: [UInt8], org: String? = nil) async throws -> Int {
        try await queue(ByteBuffer(bytes: bytes), contentType: "application/octet-stream", org: org)
    }

    /// Queues `count` generated pushes with ids `<prefix><seq>`; returns their sequence numbers.
    @discardableResult
    package func burst(count: Int, size: Int = 300, prefix: String = "b-", org: String? = nil) async throws -> Range<Int> {
        var query = "count=\(count)&size=\(size)&prefix=\(Self.percentEncoded(prefix))"
        if let org {
            query += "&org=\(Self.percentEncoded(org))"
        }
        let answer: BurstAnswer = try await decode(request(.POST, "/push/burst?" + query, expecting: 202))
        return answer.firstSequenceNumber..<(answer.firstSequenceNumber + answer.count)
    }

    /// Starts a steady run: `count` generated pushes with ids `<prefix><seq>`, `rate` per second.
    ///
    /// Returns at once; the latencies show in ``stats()`` as `ackLatencyMicroseconds`.
    package func steady(count: Int, rate: Int, size: Int = 300, prefix: String = "s-", org: String? = nil) async throws {
        var query = "count=\(count)&rate=\(rate)&size=\(size)&prefix=\(Self.percentEncoded(prefix))"
        if let org {
            query += "&org=\(Self.percentEncoded(org))"
        }
        try await request(.POST, "/push/steady?" + query, expecting: 202)
    }

    package func stats() async throws -> DevServerStats {
        try await decode(request(.GET, "/stats", expecting: 200))
    }

    /// Sends a control request such as `"close?code=1001"`, `"drop"`, `"silence?on=1"` or
    /// `"reject?status=401"`; `path` may also start with `/control/`.
    @discardableResult
    package func control(_ path: String) async throws -> String {
        let fullPath = path.hasPrefix("/control/") ? path : "/control/" + path
        return try await request(.POST, fullPath, expecting: 200).body
    }

    /// For every host of `org` (the server's when `nil`), or for `host` of it alone.
    private func queue(_ body: ByteBuffer, contentType: String, org: String?, host: String? = nil) async throws -> Int {
        let query = [org.map { "org=\(Self.percentEncoded($0))" }, host.map { "host=\(Self.percentEncoded($0))" }]
            .compactMap { $0 }.joined(separator: "&")
        let path = query.isEmpty ? "/push" : "/push?" + query
        let answer: PushAnswer = try await decode(
            request(.POST, path, headers: ["Content-Type": contentType], body: body, expecting: 202))
        return answer.seq
    }

    @discardableResult
    private func request(
        _ method: HTTPMethod, _ path: String, headers: [String: String] = [:], body: ByteBuffer = ByteBuffer(),
        expecting expectedStatus: Int
    ) async throws -> Response {
        let response = try await send(method, path, headers: headers, body: body)
        guard response.status == expectedStatus else {
            throw DevServerError.requestFailed(path: path, status: response.status, body: response.body)
        }
        return response
    }

    private func decode<Value: Decodable>(_ response: Response) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(response.body.utf8))
    }

    private struct PushAnswer: Decodable {
        var seq: Int
    }

    private struct BurstAnswer: Decodable {
        var count: Int
        var firstSequenceNumber: Int

        enum CodingKeys: String, CodingKey {
            case count
            case firstSequenceNumber = "first_seq"
        }
    }

    /// Percent-encodes everything outside the unreserved characters of RFC 3986.
    package static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }
}
