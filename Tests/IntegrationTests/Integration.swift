// SPDX-License-Identifier: Apache-2.0

import Testing

/// The integration suites run the built binaries over loopback; one at a time, so that their
/// short timing intervals do not compete for the machine's two cores.
@Suite("Integration", .serialized)
enum Integration {}

/// Builds a token with characters that need percent-encoding, as real ones may.
func makeToken() -> String {
    "tok/\(Int.random(in: 100_000...999_999))+="
}
