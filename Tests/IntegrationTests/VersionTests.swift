// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// A fleet's inventory asks each program its version: the same, the changelog's.
extension Integration {
    @Suite("Versions")
    struct VersionTests {
        @Test("intrapushd, intrapush, intrapush-notifier and intrapush-devserver answer --version with the changelog's version")
        func everyProgramSaysItsVersion() async throws {
            let directory = try TemporaryDirectory("version")
            let changelog = try String(contentsOfFile: "debian/changelog", encoding: .utf8)
            let version = try #require(changelog.split(separator: "(", maxSplits: 1).last?.split(separator: "-").first)
            for program in ["intrapushd", "intrapush", "intrapush-notifier", "intrapush-devserver"] {
                let result = try await runCLI([], directory: directory, executable: Binaries.path(program), ["--version"])
                #expect(result.status == 0 && result.stdout == "\(version)\n", "\(program): \(result.stdout)\(result.stderr)")
            }
        }
    }
}
