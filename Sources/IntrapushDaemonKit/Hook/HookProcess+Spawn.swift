// SPDX-License-Identifier: Apache-2.0

import CLinux
#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration

extension HookProcess {
    /// A memfd holding `input`, positioned at its start: the hook reads it as a file, at its own
    /// pace, and we never wait on a pipe it does not drain.
    static func makeStandardInput(_ input: [UInt8]) throws(HookSystemError) -> Int32 {
        let descriptor = intrapush_memfd_create_cloexec("intrapush-hook-stdin")
        guard descriptor >= 0 else { throw HookSystemError("create the hook's stdin") }
        var offset = 0
        while offset < input.count {
            let written = input.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, input.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let error = HookSystemError("write the hook's stdin")
                close(descriptor)
                throw error
            }
            offset += written
        }
        _ = lseek(descriptor, 0, SEEK_SET)
        return descriptor
    }

    /// posix_spawnp: `execvp` semantics for the program, the child in a new process group.
    static func spawnChild(
        _ command: HookCommandLine, environment: [String], standardInput: Int32, standardError: Int32
    ) throws(HookSystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        // Last, after the dup2s that read from descriptors above 2.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)

        let argv = CStringArray(command.arguments)
        let envp = CStringArray(environment)
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, command.program, &actions, &attributes, argv.pointers, envp.pointers)
        guard result == 0 else { throw HookSystemError("start \(command.program)", code: result) }
        return pid
    }
}

/// A NULL-terminated array of C strings that lives as long as the value.
private final class CStringArray {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    deinit {
        for pointer in pointers { free(pointer) }
    }
}
