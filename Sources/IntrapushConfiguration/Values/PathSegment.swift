// SPDX-License-Identifier: Apache-2.0

/// Percent-encoding of one URL path segment, for `{client}`, `{org}` and `{token}` in `path`.
package enum PathSegment {
    /// Every byte of the UTF-8 form outside `A–Z a–z 0–9 - . _ ~` becomes `%XX` with upper-case hex,
    /// so `/`, `+`, `=` and spaces in an org or token cannot change the shape of the path.
    package static func percentEncoded(_ segment: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            if isUnreserved(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%"
                encoded.unicodeScalars.append(hexDigit(byte >> 4))
                encoded.unicodeScalars.append(hexDigit(byte & 0x0F))
            }
        }
        return encoded
    }

    /// Whether `scalar` is one of `A–Z a–z 0–9 - . _ ~`, which a path segment carries as it is.
    package static func isUnreserved(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && isUnreserved(UInt8(scalar.value))
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10)
    }
}
