// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Logging

extension LogLevel {
    /// The matching swift-log level.
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
