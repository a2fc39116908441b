import Foundation

/// A fresh temporary directory for one test, removed when the test is done with it.
final class TestDirectory: @unchecked Sendable {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/intrapush-it-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let target = file(name)
        try contents.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Where `swift build` put the binaries: beside the test bundle.
enum Binaries {
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    static func path(_ name: String) -> String { directory + "/" + name }
}

/// Waits until `condition` holds, checking every `interval`; fails the wait after `timeout`.
func eventually(
    timeout: Duration = .seconds(15), interval: Duration = .milliseconds(20),
    _ what: @autoclosure () -> String = "condition",
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    throw WaitTimedOut(what: what(), timeout: timeout)
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var what: String
    var timeout: Duration
    var description: String { "timed out after \(timeout) waiting for \(what)" }
}
