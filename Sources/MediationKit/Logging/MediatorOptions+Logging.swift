extension MediatorOptions {
  /// Where a mediator logs its events: nowhere by default.
  ///
  /// Each event a zone publishes becomes one ``Mediator/LogRecord``: misbehaving networks' diagnostics
  /// and failed shows at ``Mediator/LogRecord/Level/notice`` or ``Mediator/LogRecord/Level/error``,
  /// the ordinary lifecycle at ``Mediator/LogRecord/Level/debug`` or ``Mediator/LogRecord/Level/info``
  /// (the InspectingAndLogging article lists them). Records go to `os.Logger` on Apple platforms
  /// (``writesToOSLog``, subsystem ``Mediator/LogRecord/subsystem``, a category per zone and
  /// network), to ``handler`` on every platform, or both.
  ///
  /// ```swift
  /// var options = MediatorOptions()
  /// options.logging = .osLog                                       // Console.app, on Apple platforms
  /// options.logging = .handler(minimumLevel: .notice) { print($0) }  // anywhere
  /// ```
  ///
  /// Records are made and handed on outside every engine lock, on the scheduler's executor, in
  /// the order the events are published (before the app's observers see the event); nothing is
  /// made at all when logging is off. A record names zones, networks, placements, prices, error
  /// messages and reward transaction ids; never the user id or a show's custom data.
  public struct Logging: Sendable {
    /// Whether records go to `os.Logger` (``Mediator/LogRecord/subsystem``, the record's
    /// ``Mediator/LogRecord/category``), at the `OSLogType` of their level (`notice` is
    /// `.default`), as public text. Only on platforms that have `os.Logger`; elsewhere nothing is
    /// written.
    public var writesToOSLog: Bool
    /// The lowest level logged; records below it are not made.
    public var minimumLevel: Mediator.LogRecord.Level
    /// Called with each record, on the scheduler's executor, outside every engine lock; it must
    /// return promptly (it delays the event's delivery to the app's observers).
    public var handler: (@Sendable (Mediator.LogRecord) -> Void)?

    /// Logging to `os.Logger`, to `handler`, or both, from `minimumLevel` up.
    public init(
      writesToOSLog: Bool = false, minimumLevel: Mediator.LogRecord.Level = .debug,
      handler: (@Sendable (Mediator.LogRecord) -> Void)? = nil
    ) {
      self.writesToOSLog = writesToOSLog
      self.minimumLevel = minimumLevel
      self.handler = handler
    }

    /// Nothing is logged (the default).
    public static let off = Logging()

    /// Every level to `os.Logger` on Apple platforms, where Console.app and `log stream --predicate
    /// 'subsystem == "com.mediationkit"'` show it; nothing elsewhere (use ``handler(minimumLevel:_:)``).
    public static let osLog = Logging(writesToOSLog: true)

    /// Records from `minimumLevel` up to `handler`, on every platform.
    public static func handler(
      minimumLevel: Mediator.LogRecord.Level = .debug,
      _ handler: @escaping @Sendable (Mediator.LogRecord) -> Void
    ) -> Logging {
      Logging(minimumLevel: minimumLevel, handler: handler)
    }

    /// Whether anything is logged on this platform.
    public var isEnabled: Bool { handler != nil || (writesToOSLog && EventLog.hasOSLog) }
  }
}
