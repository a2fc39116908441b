// SPDX-License-Identifier: Apache-2.0

import NIOWebSocket
import Testing

@testable import IntrapushDaemonKit

@Suite("Masking keys")
struct MaskingKeySourceTests {
    @Test("keys keep coming across refills and are not repeated")
    func keysAcrossRefills() {
        var source = MaskingKeySource()
        var seen = Set<[UInt8]>()
        for _ in 0..<1_000 {
            seen.insert(Array(source.next()))
        }
        // 1,000 draws from 2^32 values: a repeat is a one-in-ten-thousand event, a broken refill is certain.
        #expect(seen.count >= 999)
    }
}
