// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit
import IntrapushSupport

@Suite("The server's retry hint")
struct RetryHintTests {
    @Test("Retry-After in seconds, or an HTTP date relative to now; a past date is 0; junk is no hint")
    func header() {
        // 1994-11-06 08:49:37 UTC is 784111777 (RFC 9110's example date).
        let then: Int64 = 784_111_777
        #expect(RetryHint.parseHeader("30", now: 0) == .seconds(30))
        #expect(RetryHint.parseHeader(" 7 ", now: 0) == .seconds(7))
        #expect(RetryHint.parseHeader("Sun, 06 Nov 1994 08:49:37 GMT", now: then - 90) == .seconds(90))
        #expect(RetryHint.parseHeader("Sun, 06 Nov 1994 08:49:37 GMT", now: then + 5) == .zero)
        #expect(RetryHint.parseHeader("soon", now: 0) == nil)
        #expect(RetryHint.parseHeader("-3", now: 0) == nil)
        #expect(RetryHint.imfFixdate("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(RetryHint.imfFixdate("Mon, 23 Nov 2026 08:00:00 GMT") == 1_795_420_800)
    }

    @Test("retry-after=N in the reason of a 1012 or 1013 close only")
    func closeReason() {
        #expect(RetryHint.parseCloseReason(code: 1013, reason: "busy; retry-after=30") == .seconds(30))
        #expect(RetryHint.parseCloseReason(code: 1012, reason: "Retry-After=5") == .seconds(5))
        #expect(RetryHint.parseCloseReason(code: 1001, reason: "retry-after=30") == nil)
        #expect(RetryHint.parseCloseReason(code: 1013, reason: "try again later") == nil)
    }

    @Test("a hint of N waits in [N, 2N], capped at ten times reconnect_max")
    func hintedDelay() {
        let backoff = Backoff(minimum: .seconds(1), maximum: .seconds(60))
        func delay(_ hint: Duration, _ jitter: Double) -> Duration {
            backoff.delay(afterHint: hint, attempt: 1, hintJitter: jitter, attemptJitter: 0)
        }
        #expect(delay(.seconds(30), 0) == .seconds(30))
        #expect(delay(.seconds(30), 1) == .seconds(60))
        #expect(delay(.seconds(30), 0.5) == .seconds(45))
        #expect(delay(.seconds(86_400), 0) == .seconds(600))
    }

    @Test("a hint never brings the daemon back sooner than its own backoff: Retry-After 0 keeps the pace")
    func hintNeverShortensTheBackoff() {
        let backoff = Backoff(minimum: .seconds(1), maximum: .seconds(60))
        #expect(backoff.delay(afterHint: .zero, attempt: 7, hintJitter: 1, attemptJitter: 1) == .seconds(60))
        #expect(backoff.delay(afterHint: .zero, attempt: 3, hintJitter: 0, attemptJitter: 0.5) == .seconds(2))
        #expect(backoff.delay(afterHint: .seconds(1), attempt: 2, hintJitter: 0, attemptJitter: 1) == .seconds(2))
        // Whatever the draw, the longest hint stays under the cap.
        #expect(backoff.delay(afterHint: RetryHint.longest, attempt: 1, hintJitter: 1, attemptJitter: 1) == .seconds(600))
    }

    @Test("numbers of any size are read without trapping: the largest are the longest hint, signs and junk are none")
    func extremeNumbers() {
        #expect(RetryHint.parseHeader("9223372036854775807", now: 0) == RetryHint.longest)
        #expect(RetryHint.parseHeader("99999999999999999999999999999", now: 0) == RetryHint.longest)
        #expect(RetryHint.parseHeader("86401", now: 0) == RetryHint.longest)
        #expect(RetryHint.parseHeader("0000000000000000000000012", now: 0) == .seconds(12))
        #expect(RetryHint.parseHeader("0", now: 0) == .zero)
        #expect(RetryHint.parseHeader("+5", now: 0) == nil)
        #expect(RetryHint.parseHeader("-9223372036854775808", now: 0) == nil)
        #expect(RetryHint.parseHeader("1e9", now: 0) == nil)
        #expect(RetryHint.parseHeader("", now: 0) == nil)
        #expect(RetryHint.parseHeader("Fri, 31 Dec 9999 23:59:59 GMT", now: 0) == RetryHint.longest)
        #expect(RetryHint.parseHeader("Sun, 06 Nov 1994 08:49:37 GMT", now: .max) == .zero)
        #expect(RetryHint.parseCloseReason(code: 1013, reason: "retry-after=99999999999999999999") == RetryHint.longest)
        #expect(RetryHint.parseCloseReason(code: 1012, reason: "retry-after=0") == .zero)
    }

    @Test("any wait prints, however long")
    func formatsAnyWait() {
        #expect(Duration.seconds(Int64.max).roundedText == "\(Int64.max)s")
        #expect(Duration.milliseconds(1500).roundedText == "2s")
        #expect(Duration.milliseconds(250).roundedText == "250ms")
        #expect(Duration.zero.roundedText == "0ms")
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
    }

    @Test("the session machine waits as the server asked, and says so")
    func machineUsesTheHint() {
        var machine = SessionStateMachine(
            backoff: Backoff(minimum: .milliseconds(100), maximum: .seconds(60)), random: FixedRandom(value: UInt64.max / 2))
        _ = machine.started()
        let action = machine.connectionFailed(.serverAskedToWait(.seconds(30), origin: "HTTP 503"), at: .now)
        guard case .scheduleReconnect(let delay, _, let reason)? = (action).first else {
            Issue.record("expected a scheduled reconnect, got \(action)")
            return
        }
        #expect(delay >= .seconds(30) && delay <= .seconds(60), "\(delay)")
        #expect(reason.description == "server asked to wait 30s (HTTP 503)")
    }
}
