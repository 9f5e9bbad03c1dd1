import Foundation
import MediationKit
import Testing

/// The conversions of numbers from outside (an SDK's latency, a reward amount, a price): clamped,
/// never a trap.
@Suite("Numbers from outside")
struct OutsideNumberTests {
  @Test func aDrawnLatencyIsRoundedToTheMillisecondAndClamped() {
    #expect(Duration.milliseconds(roundingSeconds: 0.2505) == .milliseconds(251))
    #expect(Duration.milliseconds(roundingSeconds: 1.5) == .milliseconds(1500))
    #expect(Duration.milliseconds(roundingSeconds: -0.002) == .milliseconds(-2))
    #expect(Duration.milliseconds(roundingSeconds: .nan) == .zero)
    #expect(Duration.milliseconds(roundingSeconds: .infinity) == Duration.longestDrawn)
    #expect(Duration.milliseconds(roundingSeconds: 1e300) == Duration.longestDrawn)
    #expect(Duration.milliseconds(roundingSeconds: -1e300) == .zero - Duration.longestDrawn)
    // As the simulated networks computed it before, for every latency a timer can hold.
    var random = SeededRandom(seed: 3)
    for _ in 0..<1000 {
      let seconds = random.logNormal(median: 0.8, sigma: 2)
      #expect(
        Duration.milliseconds(roundingSeconds: seconds) == .milliseconds(Int64((seconds * 1000).rounded())))
    }
  }

  @Test func aDurationTooLongForMillisecondsSaturates() {
    let long = Duration.seconds(Int64.max)
    #expect(long.milliseconds == .max)
    #expect((.zero - long).milliseconds == .min)
    #expect((long * 10).secondsAndAttoseconds.seconds == .max)
    #expect(Duration.seconds(90).milliseconds == 90_000)
  }

  @Test func aWholeAmountIsRoundedAndClamped() {
    #expect(Int(roundingClamped: 2.5) == 3)
    #expect(Int(roundingClamped: -2.4) == -2)
    #expect(Int(roundingClamped: Double(Int.max)) == .max)
    #expect(Int(roundingClamped: -1e300) == .min)
    #expect(Int(roundingClamped: .infinity) == .max)
    #expect(Int(roundingClamped: .nan) == 0)
  }

  @Test func aDurationDrawnFromARangeNoTimerHoldsIsClamped() {
    var random = SeededRandom(seed: 1)
    let drawn = random.duration(in: .zero...(Duration.seconds(Int64.max) * 10))
    #expect(drawn <= Duration.longestDrawn)
  }
}
