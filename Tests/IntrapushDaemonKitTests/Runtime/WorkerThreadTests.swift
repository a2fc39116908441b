// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import IntrapushDaemonKit

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

/// The daemon's own threads: work in order, a shutdown that lets queued work run first, and
/// work handed over afterwards told that the thread stopped.
@Suite("Worker threads")
struct WorkerThreadTests {
    @Test("work runs in the order handed over, on one thread with the name given")
    func runsInOrder() async throws {
        let thread = WorkerThread(name: .query)
        let seen = NIOLockedValueBox<[Int]>([])
        let names = NIOLockedValueBox<Set<String>>([])
        for index in 0..<100 {
            thread.submit { state in
                guard case .active = state else { return }
                seen.withLockedValue { $0.append(index) }
                names.withLockedValue { $0.insert(Self.currentThreadName()) }
            }
        }
        await thread.shutdown()
        #expect(seen.withLockedValue { $0 } == Array(0..<100))
        #expect(names.withLockedValue { $0 } == ["intrapush-query"])
    }

    @Test("a shutdown lets the queued work run first; work handed over after it is told the thread stopped")
    func shutdownDrainsThenRefuses() async throws {
        let thread = WorkerThread(name: .walSync)
        let gate = ConditionLock(value: false)
        let ran = NIOLockedValueBox(0)
        thread.submit { _ in
            gate.lock(whenValue: true)
            gate.unlock()
        }
        for _ in 0..<10 {
            thread.submit { state in
                if case .active = state { ran.withLockedValue { $0 += 1 } }
            }
        }
        async let stopped: Void = thread.shutdown()
        gate.lock()
        gate.unlock(withValue: true)
        await stopped
        #expect(ran.withLockedValue { $0 } == 10, "everything queued before the shutdown ran")
        let late = NIOLockedValueBox<WorkerThread.State?>(nil)
        thread.submit { state in late.withLockedValue { $0 = state } }
        #expect(late.withLockedValue { $0 } == .stopped)
        await thread.shutdown()  // a second shutdown returns at once
    }

    @Test("runIfActive completes on the event loop with the work's result, or fails once stopped")
    func runIfActiveCompletesOnTheLoop() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        let thread = WorkerThread(name: .metrics)
        let answer = try await thread.runIfActive(eventLoop: loop) { 42 }.get()
        #expect(answer == 42)
        await thread.shutdown()
        await #expect(throws: WorkerThread.Stopped.self) { try await thread.runIfActive(eventLoop: loop) { 1 }.get() }
        try await loops.shutdownGracefully()
    }

    static func currentThreadName() -> String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY)
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &buffer, buffer.count)
        return String(decoding: buffer[..<max(count, 0)], as: UTF8.self).trimmingSuffix("\n")
    }
}
