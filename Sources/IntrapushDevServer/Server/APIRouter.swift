// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers the HTTP API: queueing pushes, statistics, test controls and refused upgrades.
struct APIRouter {
    let hub: Hub

    /// Limits that keep a typo in a test from exhausting memory.
    private static let maximumBurstCount = 10_000_000
    private static let maximumBurstSize = 16 << 20
    private static let maximumSteadyRate = 1_000_000

    func response(to head: HTTPRequestHead, body: ByteBuffer, allocator: ByteBufferAllocator) -> APIResponse {
        let target = RequestTarget(uri: head.uri)
        if ConnectRoute.isConnectPath(target.path) {
            return connectResponse(
                uri: head.uri, authorization: head.headers.first(name: "Authorization"),
                host: head.headers.first(name: "Intrapush-Host"))
        }
        switch (head.method, target.path) {
        case (.POST, "/push"):
            let contentType = head.headers.first(name: "content-type")?.lowercased() ?? ""
            let isBinary = contentType.hasPrefix("application/octet-stream")
            guard isBinary || String(validating: body.readableBytesView, as: UTF8.self) != nil else {
                return .error(.badRequest, "a text push must be UTF-8; send other bytes with Content-Type: application/octet-stream")
            }
            let org = target.query["org"] ?? hub.configuration.defaultOrg
            // host=H: for that host alone (protocol §10); without it, for every host of the org.
            let host = target.query["host"]
            if let host, !ConnectRoute.isValidHost(host) {
                return .error(.badRequest, "host must be 1 to \(ConnectRoute.longestHost) of A-Z a-z 0-9 - . _ ~")
            }
            let sequenceNumber = hub.queue(payload: body, isBinary: isBinary, org: org, host: host)
            return .json(.accepted, #"{"seq":\#(sequenceNumber)}"#)
        case (.POST, "/push/burst"):
            return burstResponse(query: target.query, allocator: allocator)
        case (.POST, "/push/steady"):
            return steadyResponse(query: target.query, allocator: allocator)
        case (.GET, "/stats"):
            return statsResponse()
        case (.GET, "/upstream"):
            return .json(.ok, hub.upstreamJSON(after: target.query["since"].flatMap { Int($0) } ?? 0))
        case (.POST, "/upstream/reply"):
            guard let messageID = target.query["to"], !messageID.isEmpty else {
                return .error(.badRequest, "name the request to answer: POST /upstream/reply?to=ID with a JSON body")
            }
            let reply = String(buffer: body)
            guard Hub.isJSON(reply) else { return .error(.badRequest, "the reply must be JSON") }
            hub.setReply(reply, to: messageID)
            return .json(.accepted, #"{"to":"# + JSONText.quoted(messageID) + "}")
        case (.POST, "/upstream/acks"):
            guard let withhold = Self.flag(target.query["withhold"] ?? "1") else {
                return .error(.badRequest, "withhold must be 1 or 0")
            }
            hub.upstreamSettings.withholdsAcknowledgements = withhold
            return .json(.ok, #"{"withhold":\#(withhold)}"#)
        case (.POST, "/upstream/echo"):
            guard let echoes = Self.flag(target.query["on"] ?? "1") else { return .error(.badRequest, "on must be 1 or 0") }
            hub.upstreamSettings.echoes = echoes
            return .json(.ok, #"{"echo":\#(echoes)}"#)
        case (.POST, "/control/close"):
            let code = target.query["code"].map { Int($0) } ?? 1001
            guard let code, (1000...4999).contains(code) else {
                return .error(.badRequest, "code must be a close code between 1000 and 4999")
            }
            let reason = target.query["reason"] ?? ""
            guard reason.utf8.count <= 123 else { return .error(.badRequest, "reason must be at most 123 bytes") }
            // now=1 closes without waiting for acknowledgements: a server that breaks the rule, to
            // test that the client loses nothing (what was in flight comes again).
            guard let atOnce = Self.flag(target.query["now"] ?? "0") else { return .error(.badRequest, "now must be 1 or 0") }
            let closed = hub.closeConnections(code: WebSocketErrorCode(codeNumber: code), reason: reason, atOnce: atOnce).count
            return .json(.ok, #"{"closed":\#(closed)}"#)
        case (.POST, "/control/drop"):
            return .json(.ok, #"{"dropped":\#(hub.dropConnections())}"#)
        case (.POST, "/control/silence"):
            guard let silenced = Self.flag(target.query["on"] ?? "1") else {
                return .error(.badRequest, "on must be 1 or 0")
            }
            hub.setSilenced(silenced)
            return .json(.ok, #"{"silenced":\#(silenced)}"#)
        case (.POST, "/control/reset-latency"):
            hub.latencies.reset()
            return .json(.ok, #"{"reset":true}"#)
        case (.POST, "/control/reject"):
            let status = target.query["status"].flatMap { Int($0) }
            guard let status, [0, 401, 403, 429, 503].contains(status) else {
                return .error(.badRequest, "status must be 401, 403, 429, 503, or 0 to stop rejecting")
            }
            // retry_after=N sends "Retry-After: N"; retry_after_date=N an HTTP date N seconds ahead.
            var retryAfter = target.query["retry_after"]
            if let ahead = target.query["retry_after_date"].flatMap({ Int($0) }) {
                retryAfter = HTTPDate.imfFixdate(unixSeconds: Int(Date().timeIntervalSince1970) + ahead)
            }
            hub.setForcedRejection(status: status == 0 ? nil : status, retryAfter: retryAfter)
            return .json(.ok, #"{"reject_status":\#(status)}"#)
        case (_, "/push"), (_, "/push/burst"), (_, "/push/steady"), (_, "/stats"), (_, "/control/close"),
            (_, "/control/drop"), (_, "/control/silence"), (_, "/control/reject"), (_, "/control/reset-latency"),
            (_, "/upstream"), (_, "/upstream/reply"), (_, "/upstream/acks"), (_, "/upstream/echo"):
            return .error(.methodNotAllowed, "\(head.method) is not allowed on \(target.path)")
        default:
            return .error(.notFound, "no such endpoint: \(target.path)")
        }
    }

    /// A connect path that reached the API was not upgraded: refused, unknown, or not a WebSocket request.
    private func connectResponse(uri: String, authorization: String?, host: String?) -> APIResponse {
        switch hub.admission(forURI: uri, authorization: authorization, host: host) {
        case .reject(let status):
            hub.upgradeRejected(status: status, uri: uri)
            switch status {
            case 403: return .error(.forbidden, "connections are refused")
            case 429, 503:
                var response = APIResponse.error(status == 429 ? .tooManyRequests : .serviceUnavailable, "come back later")
                if let retryAfter = hub.forcedRetryAfter { response.headers = [("Retry-After", retryAfter)] }
                return response
            default: return .error(.unauthorized, "wrong token")
            }
        case .notFound:
            return .error(.notFound, "expected /connect/{client}/{org}/{token}")
        case .badPercentEncoding:
            return .error(.badRequest, "a segment of the path is not percent-encoded properly (% and two hex digits)")
        case .badHost:
            return .error(.badRequest, "Intrapush-Host must be 1 to \(ConnectRoute.longestHost) of A-Z a-z 0-9 - . _ ~")
        case .accept:
            return .error(.badRequest, "expected a WebSocket upgrade request")
        }
    }

    private func burstResponse(query: [String: String], allocator: ByteBufferAllocator) -> APIResponse {
        let count: Int, size: Int
        switch Self.countAndSize(query) {
        case .success(let values): (count, size) = values
        case .failure(let error): return error.response
        }
        let (range, queuedAt) = hub.queueBurst(
            count: count, size: size, prefix: query["prefix"] ?? "b-",
            org: query["org"] ?? hub.configuration.defaultOrg, allocator: allocator)
        let queuedMicroseconds = hub.microsecondsSinceStart(at: queuedAt)
        return .json(
            .accepted,
            #"{"count":\#(range.count),"first_seq":\#(range.lowerBound),"queued_us":\#(queuedMicroseconds)}"#)
    }

    private func steadyResponse(query: [String: String], allocator: ByteBufferAllocator) -> APIResponse {
        let count: Int, size: Int
        switch Self.countAndSize(query) {
        case .success(let values): (count, size) = values
        case .failure(let error): return error.response
        }
        guard let rate = query["rate"].map({ Int($0) }) ?? 1000, (1...Self.maximumSteadyRate).contains(rate) else {
            return .error(.badRequest, "rate must be a number of pushes per second from 1 to \(Self.maximumSteadyRate)")
        }
        let start = hub.startSteadyRun(
            count: count, rate: rate, size: size, prefix: query["prefix"] ?? "s-",
            org: query["org"] ?? hub.configuration.defaultOrg, allocator: allocator)
        let startMicroseconds = hub.microsecondsSinceStart(at: start)
        return .json(.accepted, #"{"count":\#(count),"rate":\#(rate),"start_us":\#(startMicroseconds)}"#)
    }

    private struct BadRequest: Error {
        var response: APIResponse
    }

    /// The `count` (default 1) and `size` (default 300) of a generated push request, within limits.
    private static func countAndSize(_ query: [String: String]) -> Result<(Int, Int), BadRequest> {
        let count = query["count"].map { Int($0) } ?? 1
        let size = query["size"].map { Int($0) } ?? 300
        guard let count, (0...Self.maximumBurstCount).contains(count) else {
            return .failure(BadRequest(response: .error(.badRequest, "count must be a number from 0 to \(Self.maximumBurstCount)")))
        }
        guard let size, (0...Self.maximumBurstSize).contains(size) else {
            return .failure(
                BadRequest(response: .error(.badRequest, "size must be a number of bytes from 0 to \(Self.maximumBurstSize)")))
        }
        return .success((count, size))
    }

    private func statsResponse() -> APIResponse {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let data = try encoder.encode(hub.stats)
            return .json(.ok, String(decoding: data, as: UTF8.self))
        } catch {
            return .error(.internalServerError, "cannot encode the statistics: \(error)")
        }
    }

    private static func flag(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "on": true
        case "0", "false", "off": false
        default: nil
        }
    }
}
