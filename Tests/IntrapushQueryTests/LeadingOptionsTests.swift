// SPDX-License-Identifier: Apache-2.0

import IntrapushQuery
import Testing

@Suite("--database and --config before the command")
struct LeadingOptionsTests {
    @Test("leading --database and --config, in either form, move after the command's name")
    func moved() {
        #expect(LeadingOptions.moved(["--database", "/x.db", "list", "--limit", "3"])
            == ["list", "--database", "/x.db", "--limit", "3"])
        #expect(LeadingOptions.moved(["--config=/c.conf", "--database", "/x.db", "count", "--unread"])
            == ["count", "--config=/c.conf", "--database", "/x.db", "--unread"])
    }

    @Test("arguments after the command, other options and a missing command are left alone")
    func leftAlone() {
        #expect(LeadingOptions.moved(["list", "--database", "/x.db"]) == ["list", "--database", "/x.db"])
        #expect(LeadingOptions.moved(["--help"]) == ["--help"])
        #expect(LeadingOptions.moved(["--database", "/x.db"]) == ["--database", "/x.db"])
        #expect(LeadingOptions.moved(["show", "--", "--database"]) == ["show", "--", "--database"])
    }
}
