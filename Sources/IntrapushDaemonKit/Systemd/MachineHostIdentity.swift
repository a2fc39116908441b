// SPDX-License-Identifier: Apache-2.0

import CSystemd
import IntrapushConfiguration

#if canImport(Glibc)
import Glibc
#endif

/// This host's identity as systemd recommends deriving one for an application: a keyed hash of
/// the machine id with intrapush's application id (`sd_id128_get_machine_app_specific`), never
/// the machine id itself, which is meant to stay on the machine.
package enum MachineHostIdentity {
    /// The 32 lower-case hex digits of the application-specific id, or why there is none (no
    /// `/etc/machine-id`, or an unreadable or malformed one).
    @Sendable
    package static func derive() -> Result<String, ConfigurationLoader.HostIdentityUnavailable> {
        var application = sd_id128_t()
        guard sd_id128_from_string(HostIdentity.applicationID, &application) == 0 else {
            return .failure(.init(reason: "intrapush's application id does not parse"))
        }
        var derived = sd_id128_t()
        let status = sd_id128_get_machine_app_specific(application, &derived)
        guard status == 0 else {
            return .failure(.init(reason: "/etc/machine-id: \(String(cString: strerror(-status)))"))
        }
        return .success(hex(derived))
    }

    private static func hex(_ id: sd_id128_t) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        withUnsafeBytes(of: id.bytes) { bytes in
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
