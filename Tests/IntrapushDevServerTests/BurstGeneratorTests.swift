// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import Testing

@testable import IntrapushDevServer

@Suite("Burst generator")
struct BurstGeneratorTests {
    private struct Payload: Decodable, Equatable {
        var id: String
        var title: String
        var body: String
    }

    @Test("payloads are JSON objects with consecutive ids, padded to about the requested size")
    func payloadShape() throws {
        let payloads = BurstGenerator(prefix: "b\"-", size: 300)
            .makePayloads(firstSequenceNumber: 7, count: 3, allocator: ByteBufferAllocator())
        #expect(payloads.map(\.messageID) == ["b\"-7", "b\"-8", "b\"-9"])
        for (offset, generated) in payloads.enumerated() {
            let decoded = try JSONDecoder().decode(Payload.self, from: Data(generated.payload.readableBytesView))
            #expect(decoded.id == "b\"-\(7 + offset)")
            #expect(decoded.title == "Burst \(7 + offset)")
            #expect(generated.payload.readableBytes == 300)
        }
    }

    @Test("a size smaller than the fields gives an empty body, not a broken payload")
    func tinySize() throws {
        let payload = try #require(
            BurstGenerator(prefix: "b-", size: 1)
                .makePayloads(firstSequenceNumber: 1, count: 1, allocator: ByteBufferAllocator()).first)
        let decoded = try JSONDecoder().decode(Payload.self, from: Data(payload.payload.readableBytesView))
        #expect(decoded == Payload(id: "b-1", title: "Burst 1", body: ""))
    }
}
