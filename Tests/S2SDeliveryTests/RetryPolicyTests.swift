import MediationKit
import S2SDelivery
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
  let policy = RetryPolicy.standard

  @Test func standardIsFiveSecondsAndTwoImmediateRetries() {
    #expect(policy.attemptTimeout == .seconds(5))
    #expect(policy.maxAttempts == 3)
    #expect(policy.retryDelay == .zero)
    #expect(policy.longestDelivery == .seconds(15))
  }

  @Test(arguments: [200, 201, 204, 299])
  func anyTwoHundredIsDelivered(status: Int) {
    for attempt in 1...3 {
      #expect(policy.decision(after: .response(status: status), attempt: attempt) == .delivered)
    }
  }

  @Test(arguments: [
    HTTPGetOutcome.response(status: 500), .response(status: 404), .response(status: 199),
    .response(status: 300), .response(status: 302), .timedOut, .failed("connection refused"),
  ])
  func everythingElseIsRetriedTwiceThenGivenUp(outcome: HTTPGetOutcome) {
    #expect(policy.decision(after: outcome, attempt: 1) == .retry(after: .zero))
    #expect(policy.decision(after: outcome, attempt: 2) == .retry(after: .zero))
    #expect(policy.decision(after: outcome, attempt: 3) == .giveUp)
    #expect(policy.decision(after: outcome, attempt: 4) == .giveUp)
  }

  @Test func aRetryDelayIsHonouredAndCounted() {
    let delayed = RetryPolicy(attemptTimeout: .seconds(2), maxAttempts: 2, retryDelay: .seconds(60))
    #expect(delayed.decision(after: .timedOut, attempt: 1) == .retry(after: .seconds(60)))
    #expect(delayed.decision(after: .timedOut, attempt: 2) == .giveUp)
    #expect(delayed.longestDelivery == .seconds(64))
  }

  @Test func outOfRangeSettingsAreClamped() {
    let clamped = RetryPolicy(attemptTimeout: .seconds(-1), maxAttempts: 0, retryDelay: .seconds(-3))
    #expect(clamped.maxAttempts == 1)
    #expect(clamped.attemptTimeout == .milliseconds(1))
    #expect(clamped.retryDelay == .zero)
    #expect(clamped.decision(after: .response(status: 500), attempt: 1) == .giveUp)
  }
}
