// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// The power-cut test's switches, as the daemon reads them from its environment.
@Suite("The test switches")
struct TestSwitchesTests {
    @Test("without them the checkpointer starts with its own threshold, and nothing is said")
    func none() {
        let switches = TestSwitches(environment: ["INTRAPUSH_HOST": "example.org"])
        #expect(switches.checkpoints == CheckpointSettings())
        #expect(switches.checkpoints.startsCheckpointer)
        #expect(switches.checkpoints.threshold == CheckpointSchedule.defaultThreshold)
        #expect(switches.notices.isEmpty)
    }

    @Test("a threshold and no checkpointer are taken, each said once")
    func taken() {
        let switches = TestSwitches(environment: [
            "INTRAPUSH_TEST_CHECKPOINT_THRESHOLD": "16", "INTRAPUSH_TEST_NO_CHECKPOINTER": "1",
        ])
        #expect(switches.checkpoints == CheckpointSettings(threshold: 16, startsCheckpointer: false))
        #expect(switches.notices.count == 2)
        #expect(switches.notices.allSatisfy { $0.contains("a switch for tests") })
    }

    @Test("a value they do not take is ignored, saying so")
    func refused() {
        let switches = TestSwitches(environment: [
            "INTRAPUSH_TEST_CHECKPOINT_THRESHOLD": "0", "INTRAPUSH_TEST_NO_CHECKPOINTER": "yes",
        ])
        #expect(switches.checkpoints == CheckpointSettings())
        #expect(switches.notices == [
            "INTRAPUSH_TEST_CHECKPOINT_THRESHOLD=0 ignored: it takes a number of frames above 0",
            "INTRAPUSH_TEST_NO_CHECKPOINTER=yes ignored: it takes 1 or 0",
        ])
    }
}
