// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import Testing

/// Drop-ins: `intrapush.conf.d/*.conf` after the file, in lexical order, a later key winning;
/// what a fleet's tools and debconf write without editing the administrator's file.
@Suite("Configuration drop-ins")
struct ConfigurationDropInTests {
    @Test("drop-ins are read after the file in lexical order; the later key wins, and says where it came from")
    func order() throws {
        let fixture = try ConfigurationFixture()
        try fixture.makeDirectory("intrapush.conf.d")
        try fixture.write("intrapush.conf.d/50-site.conf", "heartbeat_interval = \"5s\"\nretention_days = 30\n")
        try fixture.write("intrapush.conf.d/10-debconf.conf", "host = \"from-debconf:1\"\nretention_days = 10\n")
        try fixture.write("intrapush.conf.d/90-last.conf", "retention_days = 7\n")
        try fixture.write("intrapush.conf.d/README", "not = toml at all [")
        try fixture.write("intrapush.conf.d/.hidden.conf", "retention_days = 1\n")
        let loaded = try fixture.load(ConfigurationFixture.minimal("heartbeat_interval = 10"))
        #expect(loaded.configuration.host == "from-debconf:1", "a drop-in overrides the file")
        #expect(loaded.configuration.heartbeatInterval == .seconds(5))
        #expect(loaded.configuration.retentionDays == 7, "the last drop-in wins")
        #expect(loaded.files == [fixture.configurationPath] + ["10-debconf", "50-site", "90-last"].map {
            "\(fixture.directory)/intrapush.conf.d/\($0).conf"
        })
        #expect(loaded.sources["retention_days"] == "\(fixture.directory)/intrapush.conf.d/90-last.conf:1")
        #expect(loaded.sources["org"] == "\(fixture.configurationPath):2")
        #expect(loaded.sources["reconnect_max"] == nil, "a default has no source")
        let rendered = loaded.configuration.rendered(sources: loaded.sources)
        #expect(rendered.contains("retention_days = 7  # \(fixture.directory)/intrapush.conf.d/90-last.conf:1"))
        #expect(rendered.contains(#"reconnect_max = "60s"  # default"#))
    }

    @Test("a bad key in a drop-in is named with that drop-in's file and line; every problem is reported")
    func badDropIn() throws {
        let fixture = try ConfigurationFixture()
        try fixture.makeDirectory("intrapush.conf.d")
        try fixture.write("intrapush.conf.d/20-fleet.conf", "# the fleet's\nretention_days = \"x\"\nheartbeat_intervall = 5\n")
        let error = fixture.problems(ConfigurationFixture.minimal())
        let path = "\(fixture.directory)/intrapush.conf.d/20-fleet.conf"
        #expect(error.problem("retention_days")?.description == "\(path):2: retention_days: expected an integer (was \"x\")")
        #expect(error.problem("heartbeat_intervall")?.description == "\(path):3: heartbeat_intervall: unknown key; did you mean heartbeat_interval?")
    }

    @Test("without the main file, its drop-ins and the environment are the configuration; a drop-in linked to /dev/null is masked")
    func onlyDropIns() throws {
        let fixture = try ConfigurationFixture()
        try fixture.makeDirectory("default.conf.d")
        try fixture.write("default.conf.d/00-debconf.conf", ConfigurationFixture.minimal())
        try fixture.write("default.conf.d/10-masked-target.conf", "retention_days = \"never read\"\n")
        unlink("\(fixture.directory)/default.conf.d/10-masked-target.conf")
        #expect(symlink("/dev/null", "\(fixture.directory)/default.conf.d/10-masked-target.conf") == 0)
        let loaded = try fixture.load(nil)
        #expect(loaded.configuration.host == "push.corp:8080")
        #expect(loaded.files == ["\(fixture.directory)/default.conf.d/00-debconf.conf"])
    }

    @Test("the environment still wins over every drop-in")
    func environmentLast() throws {
        let fixture = try ConfigurationFixture()
        try fixture.makeDirectory("intrapush.conf.d")
        try fixture.write("intrapush.conf.d/50-site.conf", "org = \"site\"\n")
        fixture.environment["INTRAPUSH_ORG"] = "variable"
        let loaded = try fixture.load(ConfigurationFixture.minimal())
        #expect(loaded.configuration.org == "variable")
        #expect(loaded.sources["org"] == "INTRAPUSH_ORG in the environment")
    }
}
