// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushInterface
@testable import IntrapushSupport

/// What scripts/varlink_generate.py writes for the constructs the local API does not use yet
/// (Tests/Generator/*.varlink, generated beside this file; scripts/test_varlink_generate.py holds
/// them to the generator): each means what its interface says, on the wire and in Swift.
@Suite("The generator's cases: keywords, hidden types, an error's own types, every construct")
struct GeneratorCaseTests {
    /// `value` read back from its own JSON, strictly, as a service reads a call.
    func roundTrip<Value: VarlinkValue>(_ value: Value) throws -> Value {
        try Value(varlink: value.varlinkJSON, at: "", strict: true)
    }

    @Test("a field named with a Swift keyword is that field: `self` is not the value itself, `init` no initializer")
    func keywords() throws {
        let word = KeywordsInterface.Word(default: "d", self: 7, init: true, protocol: ["p"], in: "i", case: .else)
        #expect(word.varlinkJSON == .object([
            "default": .string("d"), "self": JSONValue(Int64(7)), "init": .bool(true), "protocol": .array([.string("p")]),
            "in": .string("i"), "case": .string("else"),
        ]))
        #expect(try roundTrip(word) == word)
        #expect(word.`self` == 7 && word.`init` && word.default == "d")
        let parameters = KeywordsInterface.Init.Parameters(self: word, where: .`self`)
        #expect(parameters.varlinkJSON["where"] == .string("self"))
        #expect(try roundTrip(parameters) == parameters)
        #expect(KeywordsInterface.Switch.allCases.map(\.rawValue) == ["default", "self", "init", "return"])
        guard case .success(.`init`(let decoded)) = KeywordsInterface.Call.decode(
            VarlinkCall(method: "io.example.Keywords.Init", parameters: ["self": word.varlinkJSON]))
        else { Issue.record("Init is decoded as the method Init"); return }
        #expect(decoded.`self` == word && decoded.where == nil)
        let failure = KeywordsInterface.Failure.`self`(self: 3, default: "x")
        #expect(failure.varlinkError == VarlinkError("io.example.Keywords.Self", ["self": JSONValue(Int64(3)), "default": .string("x")]))
        guard case .`self`(let number, let text)? = KeywordsInterface.Failure(failure.varlinkError) else {
            Issue.record("the error Self reads back"); return
        }
        #expect(number == 3 && text == "x")
        #expect(KeywordsInterface.Default.Reply(type: "t").varlinkJSON == .object(["Type": .string("t")]))
    }

    @Test("a declared type stays itself where a nested type of its name is declared: the anonymous Filter is another type")
    func hiddenTypes() throws {
        let declared = ShadowingInterface.Filter(grep: "g", limit: 2)
        let parameters = ShadowingInterface.Find.Parameters(
            filter: .init(since: 5, inner: declared, filter: .init(deep: declared)), other: declared, reply: .init(text: "r"))
        #expect(type(of: parameters.other) == ShadowingInterface.Filter.self)
        #expect(type(of: parameters.filter) == ShadowingInterface.Find.Parameters.Filter.self)
        #expect(type(of: parameters.filter.filter?.deep) == ShadowingInterface.Filter?.self)
        #expect(type(of: parameters.reply) == ShadowingInterface.Reply?.self)
        #expect(try roundTrip(parameters) == parameters)
        // The declared Filter's fields, not the anonymous one's, are what `other` takes.
        #expect(throws: VarlinkDecodingError(field: "other.since")) {
            try ShadowingInterface.Find.Parameters(varlink: .object([
                "filter": .object(["since": JSONValue(Int64(1))]), "other": .object(["since": JSONValue(Int64(1))]),
            ]), at: "", strict: true)
        }
        let reply = ShadowingInterface.Find.Reply(found: [declared], reply: .init(text: "t"), parameters: .init(count: 1))
        #expect(type(of: reply.reply) == ShadowingInterface.Reply.self && type(of: reply.parameters) == ShadowingInterface.Parameters.self)
        #expect(try roundTrip(reply) == reply)
        let search = ShadowingInterface.Search(filter: .init(text: "x"), fallback: declared)
        #expect(type(of: search.fallback) == ShadowingInterface.Filter.self)
        #expect(try roundTrip(search) == search)
    }

    @Test("an anonymous enum or struct among an error's parameters is a type: a value outside it is no such error")
    func errorTypes() {
        let refused = ErrorTypesInterface.Failure.refused(reason: .tooLong, detail: .init(field: "title", limit: 256), named: .declaredTwo)
        let error = refused.varlinkError
        #expect(error == VarlinkError("io.example.ErrorTypes.Refused", [
            "reason": .string("too_long"), "detail": .object(["field": .string("title"), "limit": JSONValue(Int64(256))]),
            "named": .string("declared_two"),
        ]))
        guard case .refused(let reason, let detail, let named)? = ErrorTypesInterface.Failure(error) else {
            Issue.record("Refused reads back"); return
        }
        #expect(reason == .tooLong && detail?.limit == 256 && named == .declaredTwo)
        var unknown = error
        unknown.parameters["reason"] = .string("too_short")
        #expect(ErrorTypesInterface.Failure(unknown) == nil, "a reason the interface does not declare")
        let several = ErrorTypesInterface.Failure.several(causes: [.init(where: "disk", why: .broken)])
        #expect(several.varlinkError.parameters["causes"] == .array([.object(["where": .string("disk"), "why": .string("broken")])]))
        guard case .several(let causes)? = ErrorTypesInterface.Failure(several.varlinkError) else { Issue.record("Several reads back"); return }
        #expect(causes.first?.why == .broken && causes.first?.where == "disk")
    }

    @Test("every construct round-trips under the IDL's names: scalars, optional, array, map, nested and empty structs, enums")
    func constructs() throws {
        let everything = ConstructsInterface.Everything(
            flag: true, count: -3, ratio: 0.5, name: "n", anything: .object(["a": .null]), maybe: nil, list: [1, 2],
            table: ["k": "v"], colour: .lightBlue, colours: [.red], nested: .init(inner: .init(depth: 2), mood: .upset),
            pairs: [.init(key: "k", value: nil)], moods: ["x": .happy], nothing: .init(), userID: 9, linkURL: "u")
        let json = everything.varlinkJSON
        #expect(json["colour"] == .string("light_blue") && json["user_id"] == JSONValue(Int64(9)) && json["link_url"] == .string("u"))
        #expect(json["nested"] == .object(["inner": .object(["depth": JSONValue(Int64(2))]), "mood": .string("upset")]))
        #expect(json["nothing"] == .object([:]) && json["maybe"] == .null)
        #expect(try roundTrip(everything) == everything)
        #expect(throws: VarlinkDecodingError(field: "value.nested.mood")) {
            var wrong = json
            if case .object(var members) = wrong {
                members["nested"] = .object(["inner": .object(["depth": JSONValue(Int64(2))]), "mood": .string("calm!")])
                wrong = .object(members)
            }
            _ = try ConstructsInterface.Echo.Parameters(varlink: .object(["value": wrong]), at: "", strict: true)
        }
        guard case .success(.ping) = ConstructsInterface.Call.decode(VarlinkCall(method: "io.example.Constructs.Ping", parameters: [:]))
        else { Issue.record("Ping takes nothing"); return }
        #expect(ConstructsInterface.Failure.described(message: "m", code: nil).varlinkError
            == VarlinkError("io.example.Constructs.Described", ["message": .string("m"), "code": .null]))
        #expect(ConstructsInterface.Failure(VarlinkError("io.example.Constructs.Empty")).map { "\($0)" } == "empty")
    }

    @Test("a method is repeated only where its comment says it is safe to repeat")
    func repeatIsDeclared() {
        #expect(ConstructsInterface.Ping.mayRepeat)
        #expect(!ConstructsInterface.Echo.mayRepeat)
        #expect(!OutboxInterface.Send.mayRepeat && !OutboxInterface.Request.mayRepeat && !NotificationsInterface.Subscribe.mayRepeat)
        #expect(NotificationsInterface.List.mayRepeat && NotificationsInterface.MarkRead.mayRepeat && DaemonInterface.Status.mayRepeat)
    }
}
