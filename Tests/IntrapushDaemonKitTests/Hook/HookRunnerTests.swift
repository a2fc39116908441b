// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

@testable import IntrapushDaemonKit
@testable import IntrapushQuery
@testable import IntrapushInterface
@testable import IntrapushStore

@Suite("Hook runner: what a hook is given, run as real processes")
struct HookRunnerTests {
    /// The hook gets the `list --json` object on stdin and the four variables, exactly.
    @Test("stdin holds the notification's JSON line and the environment its four variables")
    func stdinAndEnvironment() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("record.sh", """
            cat > "$DIR/stdin-$INTRAPUSH_ID"
            printf '%s' "$INTRAPUSH_MESSAGE_ID" > "$DIR/message-$INTRAPUSH_ID"
            printf '%s' "$INTRAPUSH_TITLE" > "$DIR/title-$INTRAPUSH_ID"
            printf '%s' "$INTRAPUSH_BODY" > "$DIR/body-$INTRAPUSH_ID"
            env > "$DIR/env-$INTRAPUSH_ID"
            """)
        let environment = [
            "PATH": "/usr/bin:/bin", "KEEP_ME": "kept", "INTRAPUSH_TOKEN": "s3cret", "CREDENTIALS_DIRECTORY": "/run/c",
            "NOTIFY_SOCKET": "/run/n", "WATCHDOG_USEC": "1", "WATCHDOG_PID": "1", "LISTEN_FDS": "1", "LISTEN_PID": "1",
            "INTRAPUSH_TITLE": "stale", "https_proxy": "http://user:pa55word@proxy:3128", "INTRAPUSH_PROXY": "http://u:pa55word@p:1",
            "INTRAPUSH_HEADERS": "X-Api-Key: k3y", "INTRAPUSH_HELLO_TEXT": "{\"login\":\"s3cret\"}", "LC_ALL": "C.UTF-8",
            "INTRAPUSH_HOOK_SITE": "plant-7",
        ]
        let runner = try fixture.runner(hook, environment: environment)
        let full = notification(7, messageID: "m-7", title: "Hello \"world\" ü\nsecond line", body: "a\u{0}b")
        let bare = notification(8, messageID: nil, title: nil, body: nil)
        runner.submit(full)
        runner.submit(bare)
        #expect(await eventually { runner.counters.succeeded == 2 })
        await runner.shutdown()

        for record in [full, bare] {
            var line = ""
            record.appendJSONLine(to: &line)
            #expect(fixture.contents("stdin-\(record.id)") == line)
        }
        #expect(fixture.contents("message-7") == "m-7")
        #expect(fixture.contents("title-7") == "Hello \"world\" ü\nsecond line")
        #expect(fixture.contents("body-7") == "a\u{FFFD}b")
        #expect(fixture.contents("message-8") == "")
        #expect(fixture.contents("title-8") == "")
        #expect(fixture.contents("body-8") == "")

        let variables = (fixture.contents("env-7") ?? "").split(separator: "\n")
        // An allow-list: what a program needs, and the operator's INTRAPUSH_HOOK_*; nothing else.
        #expect(variables.contains("PATH=/usr/bin:/bin"))
        #expect(variables.contains("LC_ALL=C.UTF-8"))
        #expect(variables.contains("INTRAPUSH_HOOK_SITE=plant-7"))
        #expect(variables.contains("INTRAPUSH_ID=7"))
        #expect(!variables.contains("KEEP_ME=kept"))
        #expect(!(fixture.contents("env-7") ?? "").contains("pa55word"))
        #expect(!(fixture.contents("env-7") ?? "").contains("k3y"))
        for withheld in [
            "INTRAPUSH_TOKEN=", "CREDENTIALS_DIRECTORY=", "NOTIFY_SOCKET=", "WATCHDOG_", "LISTEN_", "https_proxy=",
            "INTRAPUSH_PROXY=", "INTRAPUSH_HEADERS=", "INTRAPUSH_HELLO_TEXT=",
        ] {
            #expect(!variables.contains { $0.hasPrefix(withheld) }, "\(withheld) reached the hook")
        }
        #expect(!variables.contains("INTRAPUSH_TITLE=stale"))
        #expect(!(fixture.contents("env-7") ?? "").contains("s3cret"))
        // The log names the notification by id only.
        #expect(fixture.logs.entries.filter { $0.message == "hook finished" }.count == 2)
        #expect(!fixture.logs.entries.contains { "\($0.message)\($0.metadata)".contains("Hello") })
    }

    /// A notification too large for the environment still runs its hook: the variables are
    /// cut, the whole record is on stdin.
    @Test("a 200 KB body runs the hook, its variable cut on a character boundary and stdin whole")
    func largeBodyStillRuns() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("record.sh", """
            cat > "$DIR/stdin-$INTRAPUSH_ID"
            printf '%s' "$INTRAPUSH_BODY" > "$DIR/body-$INTRAPUSH_ID"
            """)
        let runner = try fixture.runner(hook)
        let body = String(repeating: "ü", count: 100_000)
        let record = notification(3, messageID: "m-3", title: "big", body: body)
        runner.submit(record)
        #expect(await eventually { runner.counters.succeeded == 1 })
        await runner.shutdown()
        #expect(runner.counters.failed == 0)
        #expect(fixture.contents("body-3") == String(repeating: "ü", count: 8192 / 2), "the first 8 KiB")
        var line = ""
        record.appendJSONLine(to: &line)
        #expect(fixture.contents("stdin-3") == line)
    }

    /// No shell ever sees the message: command substitutions in it stay text.
    @Test("a title full of shell metacharacters runs nothing extra")
    func metacharactersRunNothing() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("record.sh", #"printf '%s' "$INTRAPUSH_TITLE" > "$DIR/title"; printf '%s' "$1" > "$DIR/argument""#)
        let runner = try fixture.runner("\(hook) 'literal $(touch pwned0)'")
        let hostile = "$(touch pwned); `touch pwned2`; touch pwned3 && touch \"$DIR/pwned4\" | sh -c 'touch pwned5'"
        runner.submit(notification(1, messageID: "$(touch pwned6)", title: hostile, body: "`touch pwned7`"))
        #expect(await eventually { runner.counters.succeeded == 1 })
        await runner.shutdown()

        #expect(fixture.contents("title") == hostile)
        #expect(fixture.contents("argument") == "literal $(touch pwned0)")
        for folder in [fixture.directory, FileManager.default.currentDirectoryPath] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            #expect(!names.contains { $0.hasPrefix("pwned") }, "\(folder) holds \(names)")
        }
    }

    /// The database, sockets and notify socket of the daemon must not be reachable from a hook.
    @Test("no descriptor of the daemon leaks into the hook, even one opened without CLOEXEC")
    func noDescriptorLeaks() async throws {
        let fixture = try HookTestFixture()
        let leaky = fixture.path("daemon.sqlite3")
        _ = FileManager.default.createFile(atPath: leaky, contents: Data("x".utf8))
        let descriptor = open(leaky, O_RDONLY)  // deliberately without O_CLOEXEC
        #expect(descriptor > 2)
        defer { close(descriptor) }
        let hook = try fixture.script("fds.sh", #"exec ls -l /proc/self/fd > "$DIR/fds""#)
        let runner = try fixture.runner(hook)
        runner.submit(notification(1))
        #expect(await eventually { runner.counters.succeeded == 1 })
        await runner.shutdown()

        let listing = fixture.contents("fds") ?? ""
        let numbers = listing.split(separator: "\n").compactMap { line -> Int? in
            guard let arrow = line.range(of: " -> ") else { return nil }
            return Int(line[..<arrow.lowerBound].split(separator: " ").last ?? "")
        }
        // 0 stdin, 1 the listing, 2 stderr, 3 the directory ls itself reads.
        #expect(!numbers.isEmpty)
        #expect(Set(numbers).isSubset(of: [0, 1, 2, 3]), "\(listing)")
        #expect(!listing.contains("daemon.sqlite3"))
    }

    @Test("a failing hook is counted and logged with its status and the start of its stderr")
    func failure() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("fail.sh", "echo 'boom: disk on fire' >&2\nexit 3")
        let runner = try fixture.runner(hook)
        runner.submit(notification(5))
        #expect(await eventually { runner.counters.failed == 1 })
        await runner.shutdown()

        #expect(runner.counters.started == 1)
        #expect(runner.counters.succeeded == 0)
        let warning = fixture.logs.entries.first { $0.message == "hook failed" }
        #expect(warning?.level == .warning)
        #expect(warning?.metadata["status"] == "exited with status 3")
        #expect(warning?.metadata["stderr"] == "boom: disk on fire")
        #expect(warning?.metadata["notification"] == "5")
    }

    /// A hook that floods stderr never blocks on the pipe, and only the bound is kept.
    @Test("stderr is drained and only its first bytes kept")
    func boundedStandardError() async throws {
        let fixture = try HookTestFixture()
        let hook = try fixture.script("flood.sh", "head -c 300000 /dev/zero | tr '\\0' x >&2\nexit 1")
        let runner = try fixture.runner(hook, settings: .init(timeout: .seconds(20), standardErrorLimit: 100))
        runner.submit(notification(1))
        #expect(await eventually { runner.counters.failed == 1 })
        await runner.shutdown()
        #expect(runner.counters.timedOut == 0)
        #expect(fixture.logs.entries.first { $0.message == "hook failed" }?.metadata["stderr"] == String(repeating: "x", count: 100))
    }

    @Test("a program name without a slash is looked up in PATH; one that does not exist fails to start")
    func programLookup() async throws {
        let fixture = try HookTestFixture()
        let runner = try fixture.runner("true")
        runner.submit(notification(1))
        #expect(await eventually { runner.counters.succeeded == 1 })
        await runner.shutdown()

        let missing = try fixture.runner("/nonexistent/intrapush-hook")
        missing.submit(notification(2))
        #expect(await eventually { missing.counters.failed == 1 })
        #expect(missing.counters.started == 0)
        await missing.shutdown()
        #expect(fixture.logs.entries.contains { $0.message == "cannot start the hook" && $0.metadata["notification"] == "2" })
    }

    @Test("only stored rows, not duplicates, become runs")
    func storedRecords() {
        let pushes = [
            Push(payload: .binary([0x68, 0xFF]), messageID: "a", title: "T", body: nil, receivedAt: 5),
            Push(payload: .text("dup"), messageID: "b", title: nil, body: nil, receivedAt: 6),
        ]
        let records = NotificationRecord.stored(pushes, outcomes: [.inserted(rowID: 41), .duplicate])
        #expect(records == [NotificationRecord(id: 41, messageID: "a", receivedAt: 5, payload: "h\u{FFFD}", title: "T", body: nil, readAt: nil)])
    }
}
