// SPDX-License-Identifier: Apache-2.0

/// Which host of the fleet this is, as the server is told (protocol §10): the `Intrapush-Host`
/// header of every upgrade, and `{host}` in `path`, `headers` and `hello_text`.
///
/// One token is usually shared by a whole fleet, so the token cannot say which host connects;
/// this does. It is no secret: it is derived from the machine id through systemd's
/// application-specific hash, so it neither reveals `/etc/machine-id` nor links this program's
/// traffic with another's.
package struct HostIdentity: Sendable, Equatable, CustomStringConvertible {
    package enum Origin: Sendable, Equatable {
        /// `host_id` in the configuration (an image that must keep one).
        case configured
        /// Derived from the machine id for intrapush (`sd_id128_get_machine_app_specific`).
        case machine
    }

    package var value: String
    package var origin: Origin

    package init(value: String, origin: Origin) {
        self.value = value
        self.origin = origin
    }

    package var description: String { value }

    /// intrapush's application id for `sd_id128_get_machine_app_specific`: fixed for ever, so a
    /// host's identity survives upgrades and reinstalls.
    package static let applicationID = "3d1e5e30657342919a903f916ac63ab7"

    /// The longest identity: the server keys what it keeps by it.
    package static let maximumLength = 64

    /// Why `text` cannot be a host's identity, or `nil` when it can: 1 to 64 characters that need
    /// no encoding in a path segment or a header (`A–Z a–z 0–9 - . _ ~`).
    package static func problem(with text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maximumLength else {
            return "must be 1 to \(maximumLength) characters"
        }
        guard text.unicodeScalars.allSatisfy(PathSegment.isUnreserved) else {
            return "may hold only A-Z a-z 0-9 - . _ ~ (it goes into a header and a path as it is)"
        }
        return nil
    }

    /// Where a message says the identity came from.
    package var source: String {
        switch origin {
        case .configured: "host_id"
        case .machine: "derived from this machine's id (/etc/machine-id) for intrapush"
        }
    }
}
