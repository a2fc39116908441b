import IntrapushStore
import Testing

@testable import IntrapushInterface

/// The control socket's protocol has one definition for both ends: whatever one side encodes,
/// the other decodes to the same thing.
@Suite("The control protocol: what one end writes, the other reads back")
struct ControlProtocolRoundTripTests {
    static let bodies = ["", "{}", "{\"text\":\"héllo wörld 👋\"}", "two\nlines\n", String(repeating: "x", count: 70_000)]

    /// The daemon reads the header line, then exactly `length` bytes of body.
    func serverSide(_ request: [UInt8]) -> (verb: String, argument: String, body: [UInt8])? {
        guard let newline = request.firstIndex(of: UInt8(ascii: "\n")), newline <= ControlRequestHeader.longest,
            let (verb, argument, length) = ControlRequestHeader.parse(String(decoding: request[..<newline], as: UTF8.self)),
            request.count - newline - 1 == length
        else { return nil }
        return (verb, argument, Array(request[(newline + 1)...]))
    }

    @Test("a request's verb, argument and body, in bytes, whatever the body holds")
    func requests() throws {
        for verb in ["send", "request", "mark-read", "status", "wake"] {
            for argument in ["-", "1", "1500"] {
                for body in Self.bodies {
                    let decoded = try #require(serverSide(ControlRequestHeader.encode(verb: verb, argument: argument, body: body)))
                    #expect(decoded.verb == verb && decoded.argument == argument)
                    #expect(decoded.body == Array(body.utf8), "\(verb) with a body of \(body.utf8.count) bytes")
                }
            }
        }
    }

    @Test("an answer's status and body; nothing until all of it is there")
    func answers() throws {
        for status: Int32 in [0, 64, 65, 69, 74, 75] {
            for body in Self.bodies {
                let answer = ControlAnswer(status: status, body: body)
                let bytes = answer.encoded
                #expect(ControlAnswer.parse(bytes) == answer)
                #expect(ControlAnswer.parse(Array(bytes.dropLast())) == nil || body.isEmpty, "a cut answer is incomplete")
            }
        }
        #expect(ControlAnswer.parse(Array("0 -5\nabc".utf8)) == nil, "a negative length is no answer")
        #expect(ControlAnswer.parse(Array("zero 3\nabc".utf8)) == nil)
    }

    @Test("a request's timeout: milliseconds there and back, '-' for the configured one")
    func timeouts() {
        for milliseconds: Int64 in [1, 999, 1500, 86_400_000] {
            let argument = ControlRequestHeader.timeoutArgument(.milliseconds(milliseconds))
            #expect(ControlRequestHeader.requestTimeout(argument, longestMilliseconds: 315_360_000_000) == .some(.milliseconds(milliseconds)))
        }
        #expect(ControlRequestHeader.timeoutArgument(nil) == "-")
        #expect(ControlRequestHeader.requestTimeout("-", longestMilliseconds: 1000) == .some(nil))
    }

    @Test("mark-read: the ids the CLI sends are the ids the daemon marks; none means all")
    func markReadRequests() {
        for ids: [Int64] in [[1], [41, 42], [Int64.max, 0, -1], Array(1...5000)] {
            #expect(MarkReadList.parse(ControlBodies.markReadRequest(ids: ids)) == ids)
        }
        #expect(ControlBodies.markReadRequest(ids: nil) == "all")
        #expect(MarkReadList.parse("all") == nil, "all is not a list: the daemon reads it as every notification")
    }

    @Test("mark-read's answer: the counts and the missing ids")
    func markReadAnswers() {
        let outcomes = [
            NotificationMarker.Outcome(),
            NotificationMarker.Outcome(marked: 3, alreadyRead: 1, missing: [], receipts: 3),
            NotificationMarker.Outcome(marked: 0, alreadyRead: 0, missing: [7, 9, 1_000_000_000_000], receipts: 0),
        ]
        for outcome in outcomes {
            #expect(ControlBodies.parseMarkReadAnswer(ControlBodies.markReadAnswer(outcome)) == outcome)
        }
    }

    @Test("send and request answer with the row and the message's id, spaces and all")
    func queuedAnswers() throws {
        for (row, id) in [(Int64(1), "m-1"), (Int64.max, "an id with spaces"), (42, "ünïcode")] {
            let decoded = try #require(ControlBodies.parseQueued(ControlBodies.queued(rowID: row, messageID: id)))
            #expect(decoded.rowID == row && decoded.messageID == id)
        }
    }
}
