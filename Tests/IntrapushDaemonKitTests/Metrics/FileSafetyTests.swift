// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
@testable import IntrapushDaemonKit
import Testing

@testable import IntrapushStore

@Suite("Files the daemon creates: no links followed, modes that do not depend on the umask")
struct FileSafetyTests {
    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("metrics_file: a link planted at the temporary name or the file itself is replaced, its target untouched")
    func metricsFileFollowsNoLink() throws {
        let temporary = try TemporaryDirectory("files")
        let directory = temporary.path
        let victim = directory + "/victim"
        try "keep".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: victim)
        let path = directory + "/intrapush.prom"
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp", withDestinationPath: victim)
        try MetricsExporter.replace(path, with: Array("intrapush_up 1\n".utf8))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try mode(victim) == 0o600, "the target's mode is not changed")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "intrapush_up 1\n")
        #expect(try mode(path) == 0o644)

        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        try MetricsExporter.replace(path, with: Array("intrapush_up 2\n".utf8))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil, "the link itself was replaced")
    }

    @Test("a new database and its -wal and -shm are 0640, whatever the umask")
    func databaseModes() throws {
        let temporary = try TemporaryDirectory("files")
        let directory = temporary.path
        let path = directory + "/notifications.sqlite3"
        let previous = umask(0o002)  // would leave all three group-writable
        defer { umask(previous) }
        let store = try NotificationStore(path: path)
        _ = store
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try mode(file) == 0o640, "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
