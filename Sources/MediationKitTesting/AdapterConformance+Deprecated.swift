import MediationKit

// The 1.x entry point, kept for one major version so a 1.x adapter's tests compile with a warning
// pointing at ``AdapterConformance/check(_:placementID:secondPlacementID:ecpm:seeds:rewardGraceSeconds:lateCallbacks:)``.
extension AdapterConformance {
  /// The first violation of a report, as ``run(_:placementID:ecpm:seeds:rewardGraceSeconds:)``
  /// threw it.
  @available(*, deprecated, message: "use check(_:placementID:) and assert report.passed")
  public struct Failure: Error, CustomStringConvertible {
    /// The seed that reproduces it.
    public var seed: UInt64
    /// The violated invariant.
    public var violation: Violation
    public var description: String { "seed \(seed): \(violation)" }
  }

  /// Runs every scenario and throws the first violation: ``check(_:placementID:secondPlacementID:ecpm:seeds:rewardGraceSeconds:lateCallbacks:)``
  /// without a ``LateCallbacks`` hook, so an adapter that declares
  /// ``AdapterInfo/Capability/globalListener`` or ``AdapterInfo/Capability/availabilityFlag``
  /// throws `late-callbacks-checked`.
  ///
  /// - Throws: ``Failure``, for the report's first violation.
  @available(
    *, deprecated, message: "use check(_:placementID:), which returns a report; assert report.passed"
  )
  public static func run(
    _ registration: AdapterRegistry.Registration, placementID: String, ecpm: Double = 10,
    seeds: ClosedRange<UInt64> = 1...100, rewardGraceSeconds: Double = 5
  ) throws -> Report {
    let report = check(
      registration, placementID: placementID, ecpm: ecpm, seeds: seeds, rewardGraceSeconds: rewardGraceSeconds
    )
    if let first = report.violations.first { throw Failure(seed: first.seed, violation: first) }
    return report
  }
}
