import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// The statistics behind `mediate compare`: t quantiles, the paired interval and its coverage.
@Suite("Paired statistics")
struct PairedStatisticsTests {
  /// t(0.975, df) from standard tables (R's `qt(0.975, df)`).
  @Test(arguments: [
    (1, 12.706205), (2, 4.302653), (3, 3.182446), (4, 2.776445), (9, 2.262157), (10, 2.228139),
    (29, 2.045230), (30, 2.042272), (31, 2.039513), (40, 2.021075), (60, 2.000298), (100, 1.983972),
    (120, 1.979930), (1000, 1.962339), (1_000_000_000, 1.959964),
  ])
  func tQuantileMatchesTheTables(df: Int, expected: Double) {
    #expect(abs(StudentT.quantile975(degreesOfFreedom: df) - expected) < 2e-6)
  }

  @Test func tQuantileFallsTowardTheNormalOne() {
    var previous = Double.infinity
    for df in 1...500 {
      let t = StudentT.quantile975(degreesOfFreedom: df)
      #expect(t < previous && t > StudentT.normal975, "df \(df)")
      previous = t
    }
  }

  @Test func pairedIntervalByHand() throws {
    let differences = PairedDifferences(a: [10, 10, 10, 10], b: [11, 12, 13, 14])
    #expect(differences.values == [1, 2, 3, 4])
    #expect(differences.mean == 2.5)
    #expect(abs(try #require(differences.standardDeviation) - 1.2909944) < 1e-7)
    // 2.5 ± t(0.975, 3) · 1.2909944 / √4
    let interval = try #require(differences.confidenceInterval95)
    #expect(abs(interval.lowerBound - 0.445739) < 1e-6)
    #expect(abs(interval.upperBound - 4.554261) < 1e-6)
    // One pair: no interval, rather than an invented one.
    #expect(PairedDifferences([3]).confidenceInterval95 == nil)
    #expect(PairedDifferences([]).confidenceInterval95 == nil)
  }

  @Test func verdictFollowsTheInterval() {
    #expect(ComparisonVerdict(0.1...2) == .bBetter)
    #expect(ComparisonVerdict(-2 ... -0.1) == .aBetter)
    #expect(ComparisonVerdict(-1...1) == .noSignificantDifference)
    #expect(ComparisonVerdict(0...0) == .noSignificantDifference)
    #expect(ComparisonVerdict(nil) == .noSignificantDifference)
  }

  /// A known mean difference lies inside the 95% interval about 95% of the time: 4,000 samples of
  /// normal differences from a seeded generator, for small and larger sample sizes (with df 4 a
  /// normal quantile instead of t would cover only about 88%).
  @Test(arguments: [2, 5, 10, 30])
  func intervalCoversTheTrueDifference95PercentOfTheTime(pairs: Int) throws {
    var random = SeededRandom(seed: 42).derived("coverage", UInt64(pairs))
    let trueDifference = 0.7
    let repetitions = 4_000
    var covered = 0
    for _ in 0..<repetitions {
      let sample = (0..<pairs).map { _ in trueDifference + 2 * random.nextGaussian() }
      let interval = try #require(PairedDifferences(sample).confidenceInterval95)
      if interval.contains(trueDifference) { covered += 1 }
    }
    let coverage = Double(covered) / Double(repetitions)
    // Standard error of the coverage: √(0.95·0.05/4000) ≈ 0.0034; allow 3.5 of them.
    #expect(abs(coverage - 0.95) < 0.012, "coverage \(coverage) with \(pairs) pairs")
  }
}

/// How the comparison prints its figures.
@Suite("Comparison formatting")
struct ComparisonFormattingTests {
  @Test func signsAreRealMinusSignsAndZeroHasNone() {
    #expect(ComparisonReport.signed(.readyP99, -310.4) == "−310 ms")
    #expect(ComparisonReport.signed(.readyP99, -0.2) == "+0 ms")
    #expect(ComparisonReport.signed(.revenue, 12.345) == "+$12.35")
    #expect(ComparisonReport.signed(.fillRate, -0.0123) == "−1.23 pt")
    #expect(ComparisonReport.percent(0.041) == "+4.1%")
    #expect(ComparisonReport.percent(-0.00004) == "+0.0%")
    #expect(ComparisonReport.percent(0.04012, digits: 2) == "+4.01%")
  }
}
