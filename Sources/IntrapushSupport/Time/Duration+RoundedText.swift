// SPDX-License-Identifier: Apache-2.0

extension Duration {
    /// A wait as people read it: whole seconds for a second or more, milliseconds below ("5s",
    /// "250ms"). Integer arithmetic on the components: any `Duration` prints, none traps.
    package var roundedText: String {
        let (seconds, attoseconds) = components
        guard seconds >= 1 else {
            return "\(max(0, (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000))ms"
        }
        return "\(seconds &+ (attoseconds >= 500_000_000_000_000_000 ? 1 : 0))s"
    }
}
