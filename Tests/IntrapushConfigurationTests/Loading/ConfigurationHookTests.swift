// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Testing

@Suite("Configuration: on_notification")
struct ConfigurationHookTests {
    @Test("a command line a shell would act on is refused at its line, naming the key and the value")
    func shellSyntaxRefused() throws {
        let fixture = try ConfigurationFixture()
        let error = fixture.problems(ConfigurationFixture.minimal(#"on_notification = "notify-send $INTRAPUSH_TITLE""#))
        let problem = try #require(error.problem("on_notification"))
        #expect(problem.line == 3)
        #expect(problem.message.hasPrefix("'$INTRAPUSH_TITLE' would be expanded by a shell"))
        #expect(problem.message.hasSuffix(#"(was "notify-send $INTRAPUSH_TITLE")"#))
    }

    @Test("an environment override is checked like the file", arguments: ["a | b", "  ", "say 'hi"])
    func environmentChecked(value: String) throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_ON_NOTIFICATION"] = value
        let error = fixture.problems(ConfigurationFixture.minimal())
        let problem = try #require(error.problem("INTRAPUSH_ON_NOTIFICATION"))
        #expect(problem.description.hasPrefix("INTRAPUSH_ON_NOTIFICATION: "))
        #expect(problem.message.hasSuffix("(was \(value.debugDescription))"))
    }

    @Test("an empty value is unset, so the environment can turn off the file's hook")
    func emptyIsUnset() throws {
        let fixture = try ConfigurationFixture()
        fixture.environment["INTRAPUSH_ON_NOTIFICATION"] = ""
        let configuration = try fixture.load(ConfigurationFixture.minimal(#"on_notification = "/bin/true""#)).configuration
        #expect(configuration.onNotification == nil)
        #expect(configuration.hookCommand == nil)
    }

    @Test("the accepted text is kept as written; --check-config shows how it splits")
    func acceptedAndRendered() throws {
        let fixture = try ConfigurationFixture()
        let configuration = try fixture.load(
            ConfigurationFixture.minimal(#"on_notification = "/usr/local/bin/popup --urgency 'very low'""#)
        ).configuration
        #expect(configuration.onNotification == "/usr/local/bin/popup --urgency 'very low'")
        #expect(configuration.hookCommand?.arguments == ["/usr/local/bin/popup", "--urgency", "very low"])
        let lines = configuration.rendered().split(separator: "\n").map(String.init)
        #expect(lines.contains(#"on_notification = "/usr/local/bin/popup --urgency 'very low'""#))
        #expect(lines.contains("# on_notification runs: /usr/local/bin/popup --urgency 'very low'"))
    }
}
