// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where `swift build` put the binaries: beside the test bundle.
enum Binaries {
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    static func path(_ name: String) -> String { directory + "/" + name }
}
