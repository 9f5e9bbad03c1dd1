import Dispatch

extension DispatchScheduler {
  /// The scheduler on the main queue: the app default. Every event, delay and adapter callback of
  /// a mediator on it runs on the main thread, so a ``RewardedAd/Delegate`` is called synchronously
  /// on the main actor and adapters can call UIKit. Shared: one clock for every mediator on it.
  public static let main = DispatchScheduler(queue: .main)
}
