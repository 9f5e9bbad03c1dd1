import Dispatch
import MediationKit

/// One instance of the simulated Unity Ads SDK: initialization, per-placement loads and shows.
///
/// Behaves as the vendor guide describes: a placement holds at most one loaded ad, which a show
/// consumes; loading a placement that is loading joins that load, loading one that holds an ad
/// reports it loaded again; one ad can be on screen at a time; delegates hear back asynchronously,
/// as actions on the instance's ``Scheduler`` (the real SDK calls them on the main thread), and
/// are kept until they have been answered. Loads made while the SDK initializes wait for it.
///
/// Every delay goes through the injected ``Scheduler`` and every draw through a ``SeededRandom``
/// (one stream for loads, one for shows), so one seed gives one behaviour.
/// ``shared`` is the process default the ``UnityAds`` class methods use; mediation adapters build
/// their own with ``init(scheduler:random:profile:)``.
public final class UnityAdsSDK: Sendable {
  /// The simulated SDK's version.
  public static let sdkVersion = "4.12.0-sim"

  /// The process-wide instance: wall-clock time on a private serial queue, fixed seed.
  public static let shared = UnityAdsSDK(
    scheduler: DispatchScheduler(queue: DispatchQueue(label: "UnityAds.main")),
    random: SeededRandom(seed: 0x554E_4954))

  /// How this instance behaves.
  public let profile: UnityBehaviorProfile
  /// Where every delay and callback goes.
  public let scheduler: any Scheduler
  private let state: Locked<State>

  /// Creates an isolated SDK instance.
  public init(scheduler: any Scheduler, random: SeededRandom, profile: UnityBehaviorProfile = .default) {
    self.scheduler = scheduler
    self.profile = profile
    self.state = Locked(
      State(
        loadRandom: random.derived("unity.load"), loadRoot: random.derived("unity.auction"),
        showRandom: random.derived("unity.show")))
  }

  // MARK: - The vendor API

  /// Initializes the SDK: after ``UnityBehaviorProfile/initLatency``, `initializationComplete()`,
  /// or `initializationFailed` for an empty game id. Calling it again only adds the delegate.
  public func initialize(
    _ gameId: String, testMode: Bool = false, initializationDelegate: UnityAdsInitializationDelegate? = nil
  ) {
    let box = initializationDelegate.map(Box.init)
    let start = state.withLock { state -> Bool in
      switch state.initialization {
      case .notStarted:
        state.initialization = .initializing(box.map { [$0] } ?? [])
        return true
      case .initializing(let waiting):
        state.initialization = .initializing(waiting + (box.map { [$0] } ?? []))
        return false
      case .done(let success):
        if let box { scheduler.execute { Self.tellInitialization(box, success: success) } }
        return false
      }
    }
    guard start else { return }
    let success = !gameId.isEmpty
    scheduler.schedule(after: profile.initLatency) { [self] in
      let (waiting, loads) = state.withLock {
        state -> ([Box<UnityAdsInitializationDelegate>], [PendingLoad]) in
        guard case .initializing(let waiting) = state.initialization else { return ([], []) }
        state.initialization = .done(success: success)
        defer { state.pendingLoads = [] }
        return (waiting, state.pendingLoads)
      }
      for box in waiting { Self.tellInitialization(box, success: success) }
      for load in loads { self.load(load.placementId, box: load.delegate, auctionID: load.auctionID) }
    }
  }

  /// Whether initialization completed successfully.
  public func isInitialized() -> Bool {
    state.withLock { if case .done(true) = $0.initialization { true } else { false } }
  }

  /// Loads an ad for `placementId`; `loadDelegate` hears `unityAdsAdLoaded` or
  /// `unityAdsAdFailed` once.
  public func load(_ placementId: String, loadDelegate: UnityAdsLoadDelegate? = nil) {
    load(placementId, box: loadDelegate.map(Box.init), auctionID: nil)
  }

  /// Shows the ad loaded for `placementId`, consuming it: `unityAdsShowStart`, maybe
  /// `unityAdsShowClick`, then `unityAdsShowComplete` with ``UnityAdsShowCompletionState``;
  /// or `unityAdsShowFailed`.
  public func show(
    _ viewController: AdPresenting, placementId: String, showDelegate: UnityAdsShowDelegate? = nil
  ) {
    let box = showDelegate.map(Box.init)
    let outcome = state.withLock { state -> ShowOutcome in
      guard case .done(true) = state.initialization else {
        return .failed(.showErrorNotInitialized, "Unity Ads is not initialized")
      }
      guard !placementId.isEmpty else { return .failed(.showErrorInvalidArgument, "empty placement id") }
      if let showing = state.showing {
        return .failed(.showErrorAlreadyShowing, "an ad of placement '\(showing)' is already showing")
      }
      guard case .loaded = state.placements[placementId] else {
        return .failed(.showErrorNotReady, "placement '\(placementId)' has no ad loaded")
      }
      state.placements[placementId] = nil
      let plan = ShowPlan(profile: profile, random: &state.showRandom)
      if plan.fails { return .failed(.showErrorVideoPlayerError, "the video player failed") }
      state.showing = placementId
      return .plays(plan)
    }
    switch outcome {
    case .failed(let error, let message):
      scheduler.execute { box?.value.unityAdsShowFailed(placementId, withError: error, withMessage: message) }
    case .plays(let plan):
      scheduler.execute { box?.value.unityAdsShowStart(placementId) }
      if let click = plan.clickAt {
        scheduler.schedule(after: click) { box?.value.unityAdsShowClick(placementId) }
      }
      scheduler.schedule(after: plan.endAt) { [self] in
        state.withLock { $0.showing = nil }
        box?.value.unityAdsShowComplete(placementId, withFinish: plan.state)
      }
    }
  }

  // MARK: - Simulation wiring

  /// Simulation wiring: ``load(_:loadDelegate:)`` with the mediation auction it is for, which the
  /// vendor API has no place for. A new load's draws then come from a stream keyed by the
  /// placement and `auctionID`, so ``simulatedFill(placementId:auctionID:metaData:)`` can tell
  /// its outcome in advance; `nil` draws from the instance's sequential stream, like the vendor API.
  public func load(_ placementId: String, loadDelegate: UnityAdsLoadDelegate?, auctionID: UInt64?) {
    load(placementId, box: loadDelegate.map(Box.init), auctionID: auctionID)
  }

  /// Simulation only: whether a new load of `placementId` keyed by `auctionID` would fill once
  /// `metaData` is committed, without loading or drawing anything. Exact for a placement that is neither
  /// loading nor holding an ad (a load would join or re-report those).
  public func simulatedFill(placementId: String, auctionID: UInt64, metaData: [String: Bool]) -> Bool {
    let (root, committed) = state.withLock { ($0.loadRoot, $0.metaData) }
    var random = root.derived(placementId, auctionID)
    let merged = committed.merging(metaData) { _, new in new }
    return LoadPlan(profile: profile, metaData: merged, random: &random).error == nil
  }

  /// Applies committed ``UADSMetaData`` entries.
  func apply(metaData: [String: Bool]) {
    state.withLock { $0.metaData.merge(metaData) { _, new in new } }
  }

  /// Whether an ad of this instance is on screen.
  public var isShowing: Bool { state.withLock { $0.showing != nil } }

  // MARK: - Internals

  private func load(_ placementId: String, box: Box<UnityAdsLoadDelegate>?, auctionID: UInt64?) {
    enum Start {
      case fail(UnityAdsLoadError, String)
      case loaded
      case joined
      case started(LoadPlan, UInt64)
    }
    let start = state.withLock { state -> Start in
      switch state.initialization {
      case .notStarted: return .fail(.initializeFailed, "call UnityAds.initialize before loading")
      case .done(false): return .fail(.initializeFailed, "Unity Ads failed to initialize")
      case .initializing:
        state.pendingLoads.append(PendingLoad(placementId: placementId, delegate: box, auctionID: auctionID))
        return .joined
      case .done(true): break
      }
      guard !placementId.isEmpty else { return .fail(.invalidArgument, "empty placement id") }
      switch state.placements[placementId] {
      case .loaded: return .loaded
      case .loading(let ticket, let waiting):
        state.placements[placementId] = .loading(ticket, waiting + (box.map { [$0] } ?? []))
        return .joined
      case nil:
        let plan: LoadPlan
        if let auctionID {
          var random = state.loadRoot.derived(placementId, auctionID)
          plan = LoadPlan(profile: profile, metaData: state.metaData, random: &random)
        } else {
          plan = LoadPlan(profile: profile, metaData: state.metaData, random: &state.loadRandom)
        }
        state.lastTicket += 1
        state.placements[placementId] = .loading(state.lastTicket, box.map { [$0] } ?? [])
        return .started(plan, state.lastTicket)
      }
    }
    switch start {
    case .fail(let error, let message):
      scheduler.execute {
        box?.value.unityAdsAdFailed(toLoad: placementId, withError: error, withMessage: message)
      }
    case .loaded:
      scheduler.execute { box?.value.unityAdsAdLoaded(placementId) }
    case .joined:
      break
    case .started(let plan, let ticket):
      scheduler.schedule(after: plan.latency) { [self] in
        let waiting = state.withLock { state -> [Box<UnityAdsLoadDelegate>] in
          guard case .loading(ticket, let waiting) = state.placements[placementId] else { return [] }
          state.placements[placementId] = plan.error == nil ? .loaded : nil
          return waiting
        }
        for box in waiting {
          if let (error, message) = plan.error {
            box.value.unityAdsAdFailed(toLoad: placementId, withError: error, withMessage: message)
          } else {
            box.value.unityAdsAdLoaded(placementId)
          }
        }
      }
    }
  }

  private static func tellInitialization(_ box: Box<UnityAdsInitializationDelegate>, success: Bool) {
    if success {
      box.value.initializationComplete()
    } else {
      box.value.initializationFailed(.initializationErrorInvalidArgument, withMessage: "empty game id")
    }
  }

  private struct State {
    var initialization = Initialization.notStarted
    var pendingLoads: [PendingLoad] = []
    var placements: [String: Placement] = [:]
    var showing: String?
    var metaData: [String: Bool] = [:]
    var lastTicket: UInt64 = 0
    var loadRandom: SeededRandom
    /// The root of the keyed streams of mediation loads.
    let loadRoot: SeededRandom
    var showRandom: SeededRandom
  }

  private enum Initialization {
    case notStarted
    case initializing([Box<UnityAdsInitializationDelegate>])
    case done(success: Bool)
  }

  private struct PendingLoad {
    let placementId: String
    let delegate: Box<UnityAdsLoadDelegate>?
    let auctionID: UInt64?
  }

  private enum Placement {
    case loading(UInt64, [Box<UnityAdsLoadDelegate>])
    case loaded
  }

  private enum ShowOutcome {
    case failed(UnityAdsShowError, String)
    case plays(ShowPlan)
  }

  /// A load's outcome, drawn when it starts: latency, then internal error, then fill.
  private struct LoadPlan {
    let latency: Duration
    let error: (UnityAdsLoadError, String)?

    init(profile: UnityBehaviorProfile, metaData: [String: Bool], random: inout SeededRandom) {
      let seconds = random.logNormal(
        median: profile.loadLatencyMedian / .seconds(1), sigma: profile.loadLatencySigma)
      latency = .milliseconds(Int64((seconds * 1000).rounded()))
      var fill = profile.fillRate
      if metaData["gdpr.consent"] == false { fill *= profile.noConsentFillFactor }
      if metaData["user.nonbehavioral"] == true { fill *= profile.childDirectedFillFactor }
      if random.chance(profile.internalErrorRate) {
        error = (.internal, "internal error")
      } else if random.chance(fill) {
        error = nil
      } else {
        error = (.noFill, "no fill")
      }
    }
  }

  /// What the user does with a shown ad, drawn at show time.
  private struct ShowPlan {
    let fails: Bool
    let endAt: Duration
    let state: UnityAdsShowCompletionState
    let clickAt: Duration?

    init(profile: UnityBehaviorProfile, random: inout SeededRandom) {
      fails = random.chance(profile.videoPlayerErrorRate)
      let watch = random.duration(in: profile.watchTime)
      if random.chance(profile.skipRate) {
        endAt = random.duration(in: min(profile.earliestSkip, watch)...watch)
        state = .showCompletionStateSkipped
      } else {
        endAt = watch
        state = .showCompletionStateCompleted
      }
      let clicks = random.chance(profile.clickRate)
      let clickAt = random.duration(in: .zero...endAt)
      self.clickAt = clicks ? clickAt : nil
    }
  }
}

/// Holds a delegate for delivery on the scheduler.
///
/// `@unchecked Sendable` because the vendor's delegates are not `Sendable` (they are view
/// controllers in the guide). It is safe: the reference never changes, and the SDK only calls it
/// from its scheduler's serial executor, as the real SDK calls delegates on the main thread.
private final class Box<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
