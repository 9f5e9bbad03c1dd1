import MediationKit
import MediationKitTesting
import Testing

/// `try await ad.load()` and `try await ad.show(from:)` on virtual time.
///
/// The test drives the clock, so it starts each awaited call in a task and waits (yielding, never
/// sleeping) until the call has reached the mediator before advancing time.
@Suite("RewardedAd: async load and show")
struct AsyncFacadeTests {
  static let presenter = HeadlessPresenter()

  /// A started harness with nothing scheduled, and its zone's ad (not loaded).
  static func idle(
    load: ScriptedAdapter.LoadScript = .fill(after: .milliseconds(200)),
    show: ScriptedAdapter.ShowScript = .completes, ledger: (any RewardLedger)? = nil
  ) throws -> (Harness, RewardedAd) {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)], expiry: 600)], scripts: ["a": ["a1": [load]]], show: show,
      ledger: ledger)
    harness.settle()
    return (harness, try harness.mediator.rewardedAd(zone: "z"))
  }

  /// Starts `try await ad.load()` and lets it reach the scheduler.
  static func startLoad(_ harness: Harness, _ ad: RewardedAd) async -> Task<AdInfo, any Error> {
    // Only this test runs the scheduler, so a new pending action is the load the task requested.
    let pending = harness.scheduler.pendingCount
    let task = Task { try await ad.load() }
    #expect(
      await eventually(isolation: nil) { harness.scheduler.pendingCount > pending },
      "the load never reached the scheduler")
    return task
  }

  /// A loaded ad, and `try await ad.show(from:)` started on it (accepted: the screen is taken).
  static func startShow(
    show: ScriptedAdapter.ShowScript = .completes, ledger: (any RewardLedger)? = nil
  ) async throws -> (Harness, RewardedAd, Task<RewardedAd.ShowOutcome, any Error>) {
    let (harness, ad) = try idle(show: show, ledger: ledger)
    let loading = await startLoad(harness, ad)
    harness.settle()
    _ = try await loading.value
    let task = Task { try await ad.show(from: Self.presenter) }
    #expect(await eventually(isolation: nil) { harness.mediator.isAnyAdShowing }, "the show never started")
    return (harness, ad, task)
  }

  static func reward(in harness: Harness) -> Reward? {
    harness.recorder.events(zone: "z").lazy.compactMap {
      if case .rewarded(let reward) = $0 { reward } else { nil }
    }.first
  }

  @Test func loadReturnsTheReadyAdsInfo() async throws {
    let (harness, ad) = try Self.idle()
    let loading = await Self.startLoad(harness, ad)
    harness.settle()
    let info = try await loading.value
    #expect(info.network == "a" && info.placementID == "a1" && info.latency == .milliseconds(200))
    #expect(ad.isReady)
  }

  @Test func loadThrowsTheLoadError() async throws {
    let (harness, ad) = try Self.idle(load: .fail(after: .milliseconds(100), noFill))
    let loading = await Self.startLoad(harness, ad)
    harness.settle()
    await #expect(throws: MediationError.self) { try await loading.value }
    do {
      _ = try await loading.value
    } catch let error as MediationError {
      #expect(error.code == .noFill)
      #expect(error.waterfall.map(\.state) == [.failed])
    }
  }

  @Test func showEndsRewardedWithTheGrantedReward() async throws {
    let (harness, _, showing) = try await Self.startShow()
    harness.settle()
    let outcome = try await showing.value
    let granted = try #require(Self.reward(in: harness))
    #expect(outcome == .rewarded(granted))
    #expect(granted.amount == 100 && !granted.isRedelivery)
  }

  @Test func showEndsSkipped() async throws {
    let (harness, _, showing) = try await Self.startShow(show: .skips)
    harness.settle()
    #expect(try await showing.value == .skipped)
  }

  @Test func showEndsFailedWithTheNetworksError() async throws {
    let failure = AdapterError(.internalError, vendorCode: 7, message: "video player crashed")
    let (harness, _, showing) = try await Self.startShow(
      show: ScriptedAdapter.ShowScript([(.seconds(1), .showFailed(failure))]))
    harness.settle()
    guard case .failed(let error) = try await showing.value else {
      Issue.record("the show did not end failed")
      return
    }
    #expect(error.code == .showFailed)
    #expect(harness.names().suffix(1) == ["show_failed"])
  }

  @Test func refusedShowThrowsAtOnceWithoutAnEvent() async throws {
    let (harness, ad) = try Self.idle()
    await #expect(throws: MediationError.self) { try await ad.show(from: Self.presenter) }
    #expect(harness.names().isEmpty)
  }

  @Test func cancellingTheLoadKeepsTheAdForTheNextLoad() async throws {
    let (harness, ad) = try Self.idle()
    let loading = await Self.startLoad(harness, ad)
    loading.cancel()
    await #expect(throws: CancellationError.self) { try await loading.value }
    harness.settle()
    #expect(ad.isReady, "the load goes on after its awaiting task is cancelled")
    let again = await Self.startLoad(harness, ad)
    harness.settle()
    let info = try await again.value
    #expect(info.latency == .milliseconds(200), "the next load returns the same ad")
    #expect(harness.adapters["a"]?.loadRequests.count == 1)
    harness.settle(.seconds(700))
    #expect(
      !ad.isReady && harness.adapters["a"]?.discardedAds == 1, "the unshown ad expired and was discarded")
  }

  @Test func cancellingTheShowNeverLosesTheReward() async throws {
    let ledger = InMemoryRewardLedger()
    let (harness, ad, showing) = try await Self.startShow(ledger: ledger)
    let stream = ad.events
    showing.cancel()
    await #expect(throws: CancellationError.self) { try await showing.value }
    harness.settle()
    // The show went on: the reward reached the event streams and the ledger ...
    let granted = try #require(Self.reward(in: harness))
    var streamed: [RewardedAdEvent] = []
    for await event in stream {
      streamed.append(event)
      if event.isTerminal { break }
    }
    #expect(streamed.contains(.rewarded(granted)))
    #expect(try ledger.pending().map(\.reward) == [granted])
    harness.settle(.seconds(600))
    #expect(harness.adapters["a"]?.discardedAds == 1, "the shown ad was discarded")
    // ... and a later start, whose app never acknowledged it, redelivers it.
    let restarted = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])], scripts: ["a": ["a1": [.never]]], ledger: ledger)
    restarted.settle()
    var redelivered = granted
    redelivered.isRedelivery = true
    #expect(restarted.recorder.events(zone: "z") == [.rewarded(redelivered)])
  }

  @Test func aCancelledTaskShowsNothing() async throws {
    let (harness, ad) = try Self.idle()
    let loading = await Self.startLoad(harness, ad)
    harness.settle()
    _ = try await loading.value
    let showing = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await ad.show(from: Self.presenter)
    }
    await #expect(throws: CancellationError.self) { try await showing.value }
    #expect(ad.isReady && !harness.mediator.isAnyAdShowing)
  }
}
