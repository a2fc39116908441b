// SPDX-License-Identifier: Apache-2.0

/// `host_id`, or the identity derived from the machine id (protocol §10).
extension ConfigurationLoader {
    /// Derives this host's identity; `intrapushd` passes systemd's (sd-id128). A loader without
    /// one (the CLI, the agent, tests) knows no identity unless `host_id` is set.
    package typealias HostIdentityDerivation = @Sendable () -> Result<String, HostIdentityUnavailable>

    /// Why no identity could be derived, in words for the administrator.
    package struct HostIdentityUnavailable: Error, Sendable, Equatable {
        package var reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    func hostIdentity(reader: inout SettingReader, purpose: Purpose) -> HostIdentity? {
        if let written = reader.string(.hostID) {
            if let problem = HostIdentity.problem(with: written) {
                reader.reject(.hostID, problem)
                return nil
            }
            return HostIdentity(value: written, origin: .configured)
        }
        guard purpose == .daemon, let deriveHostIdentity else { return nil }
        switch deriveHostIdentity() {
        case .success(let value):
            return HostIdentity(value: value, origin: .machine)
        case .failure(let unavailable):
            reader.report(
                .hostID,
                "is unset and this host's identity cannot be derived from its machine id (\(unavailable.reason)): give the host a machine id (systemd-machine-id-setup), or set host_id = \"a-name-unique-in-the-fleet\"")
            return nil
        }
    }
}
