@testable import MediationKit

/// Test access to internal pure functions.
enum ZoneControllerProbe {
  static func retryDelay(_ failures: Int) -> Duration { ZoneMachine.retryDelay(afterFailures: failures) }
}

enum CapProbe {
  static func wait(caps: ZoneConfig.FrequencyCaps, showTimes: [Duration], now: Duration) -> (
    duration: Duration, reason: String
  )? {
    FrequencyCapCheck.wait(caps: caps, showTimes: showTimes, now: now).map { ($0.duration, $0.reason) }
  }
}
