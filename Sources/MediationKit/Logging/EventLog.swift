#if canImport(os)
  import os
#endif

/// Turns a mediator's events into ``Mediator/LogRecord``s for ``MediatorOptions/logging``: an
/// event hub subscriber, so it runs on the scheduler's executor, outside every engine lock, in
/// publication order.
struct EventLog: Sendable {
  /// Whether this platform has `os.Logger`.
  #if canImport(os)
    static let hasOSLog = true
  #else
    static let hasOSLog = false
  #endif

  private let logging: MediatorOptions.Logging

  /// `nil` when `logging` logs nothing here: the mediator then does not subscribe at all.
  init?(_ logging: MediatorOptions.Logging) {
    guard logging.isEnabled else { return nil }
    self.logging = logging
  }

  /// Logs `event`, unless its level is below the minimum.
  func log(_ event: Mediator.ZoneEvent) {
    guard Mediator.LogRecord.level(of: event.event) >= logging.minimumLevel else { return }
    let record = Mediator.LogRecord(event)
    #if canImport(os)
      if logging.writesToOSLog {
        Logger(subsystem: Mediator.LogRecord.subsystem, category: record.category)
          .log(level: record.level.osLogType, "\(record.message, privacy: .public)")
      }
    #endif
    logging.handler?(record)
  }
}

#if canImport(os)
  extension Mediator.LogRecord.Level {
    /// The `os.Logger` level: `notice` is `OSLogType.default`, which `Logger.notice` logs at.
    var osLogType: OSLogType {
      switch self {
      case .debug: .debug
      case .info: .info
      case .notice: .default
      case .error: .error
      }
    }
  }
#endif
