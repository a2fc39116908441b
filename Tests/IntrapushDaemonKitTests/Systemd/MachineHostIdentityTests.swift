// SPDX-License-Identifier: Apache-2.0

import Foundation
import IntrapushConfiguration
import Testing

@testable import IntrapushDaemonKit

/// The identity derived from the machine id, as systemd derives an application's (C-HOST-1).
@Suite("The host's identity derived from the machine id")
struct MachineHostIdentityTests {
    @Test("it is systemd's application-specific id for intrapush: what systemd-id128 --app-specific prints, never the machine id")
    func matchesSystemd() throws {
        let derived = try MachineHostIdentity.derive().get()
        #expect(derived.count == 32 && derived.allSatisfy(\.isHexDigit) && derived == derived.lowercased())
        #expect(try MachineHostIdentity.derive().get() == derived, "stable")
        let machineID = try String(contentsOfFile: "/etc/machine-id", encoding: .utf8)
        #expect(!machineID.contains(derived))
        #expect(HostIdentity.problem(with: derived) == nil)

        // systemd's own tool, where it is (Debian's systemd ships it), gives the same id.
        let tool = "/usr/bin/systemd-id128"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--app-specific=\(HostIdentity.applicationID)", "machine-id"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == derived)
    }
}
