// SPDX-License-Identifier: Apache-2.0

/// How a hook's process ended, decoded from its wait status.
enum HookExitStatus: Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)
    /// Reaped by someone else (SIGCHLD ignored process-wide): the status is lost.
    case unknown

    init(waitStatus status: Int32) {
        // WIFEXITED / WTERMSIG, which Swift does not import (they are macros).
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    var isSuccess: Bool { self == .exited(0) }

    var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal): return "killed by signal \(signal)\(Self.signalNames[signal].map { " (\($0))" } ?? "")"
        case .unknown: return "ended with an unknown status"
        }
    }

    private static let signalNames: [Int32: String] = [
        1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM",
    ]
}
