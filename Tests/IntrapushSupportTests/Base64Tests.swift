// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import Testing

@Suite("Base64 for Proxy-Authorization and tls_pins")
struct Base64Tests {
    static let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]

    @Test("RFC 4648's test vectors, both ways")
    func vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded, "\(plain)")
            #expect(Base64.decode(encoded) == Array(plain.utf8), "\(encoded)")
        }
    }

    @Test("only padded base64 decodes")
    func strictDecoding() {
        for text in ["Zg", "Zg=", "Z===", "Zm9v YmFy", "Zm9v-_==", "Zg==Zg==", "===="] {
            #expect(Base64.decode(text) == nil, "\(text)")
        }
    }
}
