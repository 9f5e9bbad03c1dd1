import Dispatch
import MediationKit

/// A fake network whose every answer is scripted: for testing the core, and for adapter authors
/// who want to see what the core does with a given callback sequence.
///
/// Loads answer per placement from a queue of ``LoadScript``s (the last one repeats); shows play a
/// ``ShowScript``: signals at offsets from the show call, on the injected scheduler.
public final class ScriptedAdapter: RewardedAdapter, ConsentReadBack {
  /// How one load answers.
  public enum LoadScript: Sendable {
    /// Fills after `delay`, at `ecpm` (nil: the line item's) and with an optional lifetime.
    case fill(after: Duration, ecpm: Double? = nil, lifetime: Duration? = nil)
    /// Fails after `delay`.
    case fail(after: Duration, AdapterError)
    /// Never answers.
    case never
    /// Fills after `delay`, then withdraws the ad `withdrawnAfter` the fill (through the load's
    /// ``AdapterLoadRequest/withdrawals``), like an SDK whose availability turns false.
    case fillThenWithdraw(after: Duration, withdrawnAfter: Duration, AdapterWithdrawal)
  }

  /// How one bid request answers.
  public enum BidScript: Sendable {
    /// Bids `price` after `delay`.
    case bid(after: Duration, price: Double)
    /// Declines after `delay`.
    case noBid(after: Duration)
    /// Never answers.
    case never
  }

  /// How the adapter's start answers.
  public enum StartScript: Sendable {
    case succeed(after: Duration)
    case fail(after: Duration, AdapterError)
    case never
  }

  /// Signals a show sends, each at an offset from the show call.
  public struct ShowScript: Sendable {
    public var steps: [(offset: Duration, signal: AdapterSignal)]

    public init(_ steps: [(offset: Duration, signal: AdapterSignal)]) { self.steps = steps }

    /// Displayed, rewarded, dismissed: the happy path.
    public static let completes = ShowScript([
      (.seconds(0), .displayed), (.seconds(30), .rewarded(nil)), (.seconds(31), .dismissed),
    ])
    /// Displayed, then dismissed without a reward.
    public static let skips = ShowScript([(.seconds(0), .displayed), (.seconds(5), .dismissed)])
  }

  private struct State {
    var loadScripts: [String: [LoadScript]]
    var bidScripts: [String: [BidScript]]
    var bidRequests: [AdapterLoadRequest] = []
    var cancelledBids = 0
    var showScript: ShowScript
    var loadRequests: [AdapterLoadRequest] = []
    var cancelledLoads = 0
    var discardedAds = 0
    var shows = 0
    var showRequests: [AdapterShowRequest] = []
    var shownTo: [AdapterSignal.Sink.ShowID] = []
    var ignoresCancellation = false
    var privacyChanges: [PrivacySettings] = []
    /// The withdrawal sinks of the ads loaded and not yet discarded.
    var liveAds: [ObjectIdentifier: AdapterSignal.Sink] = [:]
  }

  public let info: AdapterInfo
  private let scheduler: any Scheduler
  private let state: Locked<State>

  private let startScript: StartScript
  private let callbackQueue: DispatchQueue?

  /// Creates a scripted network.
  /// - Parameters:
  ///   - id: The network id to register under.
  ///   - scheduler: The scheduler its delays use (the mediator's).
  ///   - loads: Per placement id, the answers to successive loads; unknown placements fail no-fill.
  ///   - bids: Per placement id, the answers to successive bid requests; unknown placements decline.
  ///     Any bid script makes the adapter declare `.bidding`.
  ///   - show: What every show does.
  ///   - start: How `start` answers.
  ///   - capabilities: What the adapter declares (add `.impressionRevenue` to report revenue itself).
  ///   - callbackQueue: When set, load completions and show signals arrive on this queue — another
  ///     thread — instead of the scheduler's, as some SDKs do.
  public init(
    id: NetworkID, scheduler: any Scheduler, loads: [String: [LoadScript]], bids: [String: [BidScript]] = [:],
    show: ShowScript = .completes, start: StartScript = .succeed(after: .zero),
    capabilities: Set<AdapterInfo.Capability> = [.rewarded], callbackQueue: DispatchQueue? = nil
  ) {
    let capabilities = bids.isEmpty ? capabilities : capabilities.union([.bidding])
    self.info = AdapterInfo(
      id: id, displayName: "Scripted \(id)", adapterVersion: "1.0.0", sdkVersion: "1.0.0-scripted",
      adapterAPIVersion: AdapterCompatibility.coreAPIVersion,
      supportedSDKVersions: SemanticVersion(1, 0)..<SemanticVersion(2, 0),
      capabilities: capabilities)
    self.scheduler = scheduler
    self.startScript = start
    self.callbackQueue = callbackQueue
    self.state = Locked(State(loadScripts: loads, bidScripts: bids, showScript: show))
  }

  /// A registration whose factory returns this very instance.
  public var registration: AdapterRegistry.Registration {
    AdapterRegistry.Registration(info: info) { [self] _ in self }
  }

  /// Every load request received, in order.
  public var loadRequests: [AdapterLoadRequest] { state.withLock { $0.loadRequests } }
  /// Every bid request received, in order.
  public var bidRequests: [AdapterLoadRequest] { state.withLock { $0.bidRequests } }
  /// How many bid requests the core cancelled.
  public var cancelledBids: Int { state.withLock { $0.cancelledBids } }
  /// How many loads the core cancelled.
  public var cancelledLoads: Int { state.withLock { $0.cancelledLoads } }
  /// How many ads the core discarded.
  public var discardedAds: Int { state.withLock { $0.discardedAds } }
  /// How many shows were asked for.
  public var shows: Int { state.withLock { $0.shows } }
  /// Every show request received, in order.
  public var showRequests: [AdapterShowRequest] { state.withLock { $0.showRequests } }
  /// The show each show call's sink belongs to (``AdapterSignal/Sink/show``), in order.
  public var showIDs: [AdapterSignal.Sink.ShowID] { state.withLock { $0.shownTo } }

  /// When set, cancelled loads still answer later, like an SDK that cannot stop a request.
  public var ignoresCancellation: Bool {
    get { state.withLock { $0.ignoresCancellation } }
    set { state.withLock { $0.ignoresCancellation = newValue } }
  }

  /// Replaces the show script for later shows.
  public func setShowScript(_ script: ShowScript) { state.withLock { $0.showScript = script } }

  /// Every ``privacyDidChange(_:)`` so far, in order.
  public var privacyChanges: [PrivacySettings] { state.withLock { $0.privacyChanges } }

  /// Records the change; the scripted network's "SDK" then holds its consent strings.
  public func privacyDidChange(_ privacy: PrivacySettings) {
    state.withLock { $0.privacyChanges.append(privacy) }
  }

  /// The consent strings of the latest privacy change (none before the first).
  public var consentInSDK: IABConsent { state.withLock { $0.privacyChanges.last?.iab ?? IABConsent() } }

  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    switch startScript {
    case .succeed(let delay): scheduler.schedule(after: delay) { completion(.success(())) }
    case .fail(let delay, let error): scheduler.schedule(after: delay) { completion(.failure(error)) }
    case .never: break
    }
  }

  public func bid(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    let script = state.withLock { state -> BidScript in
      state.bidRequests.append(request)
      guard var queue = state.bidScripts[request.placementID], let next = queue.first else {
        return .noBid(after: .zero)
      }
      if queue.count > 1 { queue.removeFirst() }
      state.bidScripts[request.placementID] = queue
      return next
    }
    let timer: Cancellable
    switch script {
    case .never:
      timer = .none
    case .noBid(let delay):
      timer = scheduler.schedule(after: delay) {
        completion(.failure(AdapterError(.noFill, message: "no bid")))
      }
    case .bid(let delay, let price):
      let token = "\(request.placementID)#\(request.auctionID)"
      timer = scheduler.schedule(after: delay) {
        completion(.success(AdapterBid(price: price, token: token)))
      }
    }
    return Cancellable { [self] in
      state.withLock { $0.cancelledBids += 1 }
      timer.cancel()
    }
  }

  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let script = state.withLock { state -> LoadScript in
      state.loadRequests.append(request)
      guard var queue = state.loadScripts[request.placementID], let next = queue.first else {
        return .fail(after: .zero, AdapterError(.noFill, vendorCode: 204, message: "no script for placement"))
      }
      if queue.count > 1 { queue.removeFirst() }
      state.loadScripts[request.placementID] = queue
      return next
    }
    let timer: Cancellable
    switch script {
    case .never:
      timer = .none
    case .fail(let delay, let error):
      timer = scheduler.schedule(after: delay) { [self] in deliver { completion(.failure(error)) } }
    case .fill(let delay, let ecpm, let lifetime):
      timer = scheduler.schedule(after: delay) { [self] in
        let loaded = AdapterLoadedAd(ad: makeAd(request), ecpm: ecpm, lifetime: lifetime)
        deliver { completion(.success(loaded)) }
      }
    case .fillThenWithdraw(let delay, let withdrawnAfter, let reason):
      timer = scheduler.schedule(after: delay) { [self] in
        let loaded = AdapterLoadedAd(ad: makeAd(request))
        deliver { completion(.success(loaded)) }
        scheduler.schedule(after: withdrawnAfter) { [self] in
          deliver { request.sink.withdraw(reason) }
        }
      }
    }
    return Cancellable { [self] in
      let ignores = state.withLock { state in
        state.cancelledLoads += 1
        return state.ignoresCancellation
      }
      if !ignores { timer.cancel() }
    }
  }

  /// Withdraws every ad loaded and not yet discarded (shown ones included, as an SDK might), like an
  /// SDK whose availability turns false: each goes through its load's
  /// ``AdapterLoadRequest/withdrawals``.
  public func withdrawLoadedAds(_ reason: AdapterWithdrawal) {
    let sinks = state.withLock { Array($0.liveAds.values) }
    for sink in sinks { deliver { sink.withdraw(reason) } }
  }

  private func makeAd(_ request: AdapterLoadRequest) -> ScriptedAd {
    let ad = ScriptedAd(adapter: self)
    state.withLock { $0.liveAds[ObjectIdentifier(ad)] = request.sink }
    return ad
  }

  fileprivate func play(_ request: AdapterShowRequest, signals: AdapterSignal.Sink) {
    let script = state.withLock { state in
      state.showRequests.append(request)
      state.shownTo.append(signals.show)
      state.shows += 1
      return state.showScript
    }
    for step in script.steps {
      scheduler.schedule(after: step.offset) { [self] in deliver { signals.send(step.signal) } }
    }
  }

  /// Calls `callback` on the scripted thread: inline, or on ``callbackQueue`` like an SDK that
  /// calls back from its own thread.
  private func deliver(_ callback: @escaping @Sendable () -> Void) {
    if let callbackQueue { callbackQueue.async(execute: callback) } else { callback() }
  }

  fileprivate func noteDiscard(_ ad: ScriptedAd) {
    state.withLock { state in
      state.discardedAds += 1
      state.liveAds[ObjectIdentifier(ad)] = nil
    }
  }
}

private final class ScriptedAd: AdapterAd {
  let adapter: ScriptedAdapter

  init(adapter: ScriptedAdapter) { self.adapter = adapter }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    adapter.play(request, signals: signals)
  }

  func discard() { adapter.noteDiscard(self) }
}
