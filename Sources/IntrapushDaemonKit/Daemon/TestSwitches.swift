// SPDX-License-Identifier: Apache-2.0

/// The power-cut test's switches (docs/development.md, never for production), read once at
/// start from the daemon's environment and handed to the writer as its parameters.
struct TestSwitches: Equatable {
    /// `INTRAPUSH_TEST_CHECKPOINT_THRESHOLD=N` and `INTRAPUSH_TEST_NO_CHECKPOINTER=1`.
    var checkpoints = CheckpointSettings()
    /// One sentence per switch in force, or refused, for the journal.
    var notices: [String] = []

    static let checkpointThreshold = "INTRAPUSH_TEST_CHECKPOINT_THRESHOLD"
    static let noCheckpointer = "INTRAPUSH_TEST_NO_CHECKPOINTER"

    init(environment: [String: String]) {
        if let text = environment[Self.checkpointThreshold] {
            if let threshold = Int(text), threshold > 0 {
                checkpoints.threshold = threshold
                notices.append("\(Self.checkpointThreshold)=\(threshold), a switch for tests: the write-ahead log is copied back past \(threshold) frames")
            } else {
                notices.append("\(Self.checkpointThreshold)=\(text) ignored: it takes a number of frames above 0")
            }
        }
        if let text = environment[Self.noCheckpointer] {
            if text == "1" {
                checkpoints.startsCheckpointer = false
                notices.append("\(Self.noCheckpointer)=1, a switch for tests: the checkpointer does not start")
            } else if text != "0" && !text.isEmpty {
                notices.append("\(Self.noCheckpointer)=\(text) ignored: it takes 1 or 0")
            }
        }
    }
}
