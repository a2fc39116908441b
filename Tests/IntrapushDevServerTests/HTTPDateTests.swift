// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDevServer

@Suite("HTTP dates the reference server sends in Retry-After")
struct HTTPDateTests {
    @Test("IMF-fixdate, checked against RFC 9110's example and the epoch (values from date -u -d)")
    func imfFixdate() {
        #expect(HTTPDate.imfFixdate(unixSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.imfFixdate(unixSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.imfFixdate(unixSeconds: 1_795_420_800) == "Mon, 23 Nov 2026 08:00:00 GMT")
    }
}
