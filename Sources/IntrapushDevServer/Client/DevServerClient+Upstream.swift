// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore

/// What `GET /upstream` reports: the messages the server received from clients' outboxes.
package struct UpstreamReport: Decodable, Sendable {
    package struct Message: Decodable, Sendable {
        package var seq: Int
        package var connection: Int
        package var org: String
        package var id: String
        package var payload: String
        /// Its row was in the outbox when it arrived (with --verify-database).
        package var committed: Bool
    }

    package var count: Int
    package var distinct: Int
    /// Messages whose row the server could not see in the outbox when they arrived (--verify-database).
    package var uncommitted: Int
    package var messages: [Message]
}

extension DevServerClient {
    package func upstream() async throws -> UpstreamReport {
        let response = try await send(.GET, "/upstream", headers: [:], body: ByteBuffer())
        guard response.status == 200 else {
            throw DevServerError.requestFailed(path: "/upstream", status: response.status, body: response.body)
        }
        return try JSONDecoder().decode(UpstreamReport.self, from: Data(response.body.utf8))
    }

    /// `POST /upstream/acks?withhold=…`, `/upstream/echo?on=…` or `/upstream/reply?to=ID` with a body.
    @discardableResult
    package func upstreamControl(_ path: String, body: String = "") async throws -> String {
        let response = try await send(.POST, "/upstream/" + path, headers: [:], body: ByteBuffer(string: body))
        guard (200...202).contains(response.status) else {
            throw DevServerError.requestFailed(path: path, status: response.status, body: response.body)
        }
        return response.body
    }
}
