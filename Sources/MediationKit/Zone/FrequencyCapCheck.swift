/// Frequency caps and pacing, as a pure function of the recent show times.
enum FrequencyCapCheck {
  struct Wait: Equatable {
    var duration: Duration
    var reason: String
  }

  /// How long until a show is allowed, and why; `nil` when it is allowed now.
  ///
  /// - Parameters:
  ///   - caps: The zone's caps.
  ///   - showTimes: Times of earlier shows, oldest first.
  ///   - now: The current time.
  static func wait(caps: ZoneConfig.FrequencyCaps, showTimes: [Duration], now: Duration) -> Wait? {
    var waits: [Wait] = []
    if let interval = caps.minIntervalSeconds, let last = showTimes.last, now - last < .seconds(interval) {
      waits.append(
        Wait(
          duration: last + .seconds(interval) - now,
          reason: "at least \(MessageFormat.duration(.seconds(interval))) between shows"))
    }
    for (limit, window, name) in [
      (caps.maxPerHour, Duration.seconds(3600), "hour"), (caps.maxPerDay, .seconds(86_400), "day"),
    ] {
      guard let limit else { continue }
      let inWindow = showTimes.filter { $0 > now - window }
      if inWindow.count >= limit {
        // The show that must leave the window for one more to fit.
        let leaving = inWindow[inWindow.count - limit]
        waits.append(Wait(duration: leaving + window - now, reason: "at most \(limit) shows per \(name)"))
      }
    }
    return waits.max { $0.duration < $1.duration }
  }
}
