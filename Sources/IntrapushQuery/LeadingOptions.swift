// SPDX-License-Identifier: Apache-2.0

/// `--database` and `--config` are accepted before the command as well as after it
/// (`intrapush --database X list`): they are moved to just after the command's name before the
/// arguments are parsed, since ArgumentParser reads options only where the command declares them.
package enum LeadingOptions {
    static let names: Set<String> = ["--database", "--config"]

    /// `arguments` (without the program's name) with the leading `--database`/`--config` options,
    /// in either form (`--database X`, `--database=X`), moved after the command's name. Anything
    /// else before the command is left where it is, for the parser to judge.
    package static func moved(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.prefix { $0 != "=" })
            if names.contains(name) {
                leading.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    leading.append(arguments[index + 1])
                    index += 1
                }
                index += 1
                continue
            }
            guard argument.hasPrefix("-") else {
                // The command's name: the moved options follow it, then the rest as it was.
                return kept + [argument] + leading + arguments[(index + 1)...]
            }
            kept.append(argument)
            index += 1
        }
        return arguments  // no command: nothing to move them after
    }
}
