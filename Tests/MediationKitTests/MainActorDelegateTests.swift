import Foundation
import MediationKit
import MediationKitTesting
import XCTest

/// A `RewardedAd.Delegate` on real time and the real main queue: the facade's main-actor promise.
///
/// XCTest, not Swift Testing: XCTest runs each test on the main thread, which lets the test pump
/// the main run loop itself (`RunLoop.main.run(until:)`) until the events arrive — bounded by a
/// generous deadline, never a fixed sleep. A delegate called off the main actor would trap in
/// `MainActor.assumeIsolated`/`dispatchPrecondition` and fail the run.
final class MainActorDelegateTests: XCTestCase {
  /// The plain style: a class that just conforms (the conformance makes it main-actor isolated).
  final class PlainDelegate: RewardedAd.Delegate {
    var names: [String] = []
    var onMainThread = true
    func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent) {
      dispatchPrecondition(condition: .onQueue(.main))
      onMainThread = onMainThread && Thread.isMainThread
      names.append(event.name)
      if case .ready = event { try? showNow(ad) }
    }
  }

  /// The UIKit style: a main-actor class hierarchy (like `UIViewController`), conforming in an
  /// extension of a subclass.
  @MainActor open class Screen {
    var names: [String] = []
  }
  final class RewardScreen: Screen {}

  static func showNow(_ ad: RewardedAd) throws { try ad.show(from: HeadlessPresenter()) }

  /// A mediator on `scheduler` over one scripted network that fills at once and completes shows.
  static func mediator(on scheduler: any Scheduler) throws -> Mediator {
    let adapter = ScriptedAdapter(
      id: "a", scheduler: scheduler, loads: ["a1": [.fill(after: .milliseconds(5))]],
      show: ScriptedAdapter.ShowScript([
        (.zero, .displayed), (.milliseconds(5), .rewarded(nil)), (.milliseconds(10), .dismissed),
      ]))
    let zone = ZoneConfig(
      id: "z", reward: ZoneConfig.RewardConfig(type: "coins", amount: 5),
      lineItems: [ZoneConfig.LineItem(network: "a", placementId: "a1", priority: 0, ecpm: 1)],
      autoReload: false)
    return try Mediator(
      config: MediationConfig(zones: [zone]), registry: AdapterRegistry([adapter.registration]),
      scheduler: scheduler)
  }

  /// Runs the main run loop until `done` holds or 30 s pass.
  @MainActor static func pumpMainRunLoop(until done: () -> Bool) {
    let deadline = Date(timeIntervalSinceNow: 30)
    while !done() && Date() < deadline {
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
  }

  static let fullShow = ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"]

  /// Loads and shows through a mediator on `scheduler` with `delegate` set, pumping the main run
  /// loop until the show closes (or the deadline passes).
  @MainActor static func loadAndShow(
    on scheduler: any Scheduler, to delegate: any RewardedAd.Delegate, names: () -> [String]
  ) throws {
    let mediator = try Self.mediator(on: scheduler)
    let ad = try mediator.rewardedAd(zone: "z")
    ad.delegate = delegate
    ad.load()
    pumpMainRunLoop { names().last == "closed" }
  }

  func testPlainDelegateOnTheMainQueueScheduler() throws {
    try MainActor.assumeIsolated {
      let delegate = PlainDelegate()
      try Self.loadAndShow(on: DispatchScheduler.main, to: delegate) { delegate.names }
      XCTAssertEqual(delegate.names, Self.fullShow)
      XCTAssertTrue(delegate.onMainThread)
    }
  }

  func testMainActorClassOnAPrivateQueueScheduler() throws {
    try MainActor.assumeIsolated {
      // Events are produced on a private queue; the facade hops to the main actor, in order.
      let screen = RewardScreen()
      try Self.loadAndShow(on: DispatchScheduler(), to: screen) { screen.names }
      XCTAssertEqual(screen.names, Self.fullShow)
    }
  }
}

extension MainActorDelegateTests.RewardScreen: RewardedAd.Delegate {
  func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent) {
    dispatchPrecondition(condition: .onQueue(.main))
    MainActor.assertIsolated()
    names.append(event.name)
    if case .ready = event { try? MainActorDelegateTests.showNow(ad) }
  }
}
