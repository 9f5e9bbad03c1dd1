import Dispatch
import MediationKit
import MediationKitSimulation

/// The mediation provider string for MAX (`ALSdkInitializationConfigurationBuilder.mediationProvider`).
public let ALMediationProviderMAX = "max"

/// What the SDK learned when it initialized.
public final class ALSdkConfiguration: Sendable {
  /// The device's country, as the server reports it.
  public let countryCode: String
  /// Whether test mode is on for this device.
  public let isTestModeEnabled: Bool

  init(countryCode: String, isTestModeEnabled: Bool) {
    self.countryCode = countryCode
    self.isTestModeEnabled = isTestModeEnabled
  }
}

/// The settings `ALSdkInitializationConfiguration`'s builder block fills in.
public final class ALSdkInitializationConfigurationBuilder {
  /// The SDK key from the AppLovin dashboard.
  public let sdkKey: String
  /// The mediation provider, e.g. ``ALMediationProviderMAX``.
  public var mediationProvider: String?
  /// Ad units to warm up during initialization.
  public var adUnitIdentifiers: [String] = []

  init(sdkKey: String) { self.sdkKey = sdkKey }
}

/// The immutable settings the SDK initializes with.
public final class ALSdkInitializationConfiguration: Sendable {
  /// The SDK key from the AppLovin dashboard.
  public let sdkKey: String
  /// The mediation provider.
  public let mediationProvider: String?
  /// Ad units to warm up during initialization.
  public let adUnitIdentifiers: [String]

  /// Creates a configuration, as in the vendor's integration guide.
  ///
  /// - Parameters:
  ///   - sdkKey: The SDK key from the dashboard.
  ///   - builderBlock: Sets the optional settings.
  public init(sdkKey: String, builderBlock: (ALSdkInitializationConfigurationBuilder) -> Void = { _ in }) {
    let builder = ALSdkInitializationConfigurationBuilder(sdkKey: sdkKey)
    builderBlock(builder)
    self.sdkKey = sdkKey
    self.mediationProvider = builder.mediationProvider
    self.adUnitIdentifiers = builder.adUnitIdentifiers
  }
}

/// The simulated AppLovin SDK: initialization, the user identifier, and the home of the shared
/// `MARewardedAd` instances.
///
/// ``shared()`` is the process default the vendor guide uses (wall-clock ``DispatchScheduler``,
/// fixed seed, ``MaxBehaviorProfile/default``). Mediation and tests make isolated instances with
/// ``init(scheduler:random:profile:)``: each has its own clock, random stream, ad instances and
/// "full-screen ad showing" flag, so two instances never see each other's ads.
public final class ALSdk: Sendable {
  /// The simulated SDK's version.
  public static let version = "13.3.1-sim"
  /// The longest ``userIdentifier`` the SDK accepts, in UTF-16 code units (NSString length).
  public static let maxUserIdentifierLength = 8192
  /// The seed of the process default instance.
  public static let defaultSeed: UInt64 = 0x4D41_5853_494D  // "MAXSIM"

  private static let sharedInstance = Locked<ALSdk?>(nil)

  /// The process default SDK instance, as in `ALSdk.shared()!.userIdentifier = "user-id"`.
  ///
  /// Never `nil`; the implicitly unwrapped return keeps both `ALSdk.shared()!` (older guides)
  /// and `ALSdk.shared()` (newer ones) compiling.
  public static func shared() -> ALSdk! {
    sharedInstance.withLock { instance in
      if let instance { return instance }
      let made = ALSdk(scheduler: DispatchScheduler(), random: SeededRandom(seed: defaultSeed))
      instance = made
      return made
    }
  }

  /// Replaces the process default instance, e.g. with one on a `VirtualScheduler` for a test.
  /// Thread-safe; tests that use it should be `.serialized`.
  ///
  /// - Parameter sdk: The new default, or `nil` to go back to a fresh wall-clock instance.
  /// - Returns: The previous default, to restore afterwards.
  @discardableResult
  public static func installShared(_ sdk: ALSdk?) -> ALSdk? {
    sharedInstance.withLock { instance in
      let previous = instance
      instance = sdk
      return previous
    }
  }

  private struct State {
    var userIdentifier: String?
    var initialized = false
    var initializing = false
    var waiting: [@Sendable (ALSdkConfiguration) -> Void] = []
    var rewardedAds: [String: MARewardedAd] = [:]
  }

  /// The scheduler every simulated delay goes through.
  public let scheduler: any Scheduler
  /// The behaviour profile.
  public let profile: MaxBehaviorProfile
  /// This instance's privacy signals (the vendor's class methods act on ``shared()``'s).
  public let privacySettings = ALPrivacySettings()
  let random: SeededRandom
  let fullscreen = FullscreenSlot()
  private let state = Locked(State())
  /// The wall clock (milliseconds since 1970) S2S callbacks are stamped with.
  let wallClockMilliseconds: @Sendable () -> Int64
  /// Where the simulated AppLovin server sends S2S callbacks; `nil`: it only records them.
  let serverCallbackSender: (any ServerCallbackSender)?
  /// The simulated server's S2S callbacks: event ids drawn from their own stream, and the record.
  let serverCallbacks: Locked<MaxServerCallbackLog>

  /// Creates an isolated SDK instance.
  ///
  /// - Parameters:
  ///   - scheduler: The clock and executor for every delay and delegate call.
  ///   - random: The seed stream every draw comes from; each ad unit derives its own from it.
  ///   - profile: How the simulated network behaves.
  ///   - wallClockMilliseconds: The wall clock S2S callbacks are stamped with
  ///     (`{IMPRESSION_TIMESTAMP}`); the system's by default.
  ///   - serverCallbacks: Where the simulated AppLovin server sends S2S rewarded callbacks; `nil`
  ///     (the default) only records them in ``simulatedServerCallbacks``.
  public init(
    scheduler: any Scheduler, random: SeededRandom, profile: MaxBehaviorProfile = .default,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock,
    serverCallbacks: (any ServerCallbackSender)? = nil
  ) {
    self.scheduler = scheduler
    self.random = random
    self.profile = profile
    self.wallClockMilliseconds = wallClockMilliseconds
    self.serverCallbackSender = serverCallbacks
    self.serverCallbacks = Locked(
      MaxServerCallbackLog(
        eventIDs: random.derived("ALSdk.s2s.eventID"), limit: profile.serverCallbackHistoryLimit))
  }

  /// An identifier for the current user, passed to S2S reward postbacks.
  ///
  /// At most ``maxUserIdentifierLength`` (8192) UTF-16 code units, as the vendor documents. A
  /// longer value is rejected: the SDK keeps the previous identifier (the real SDK logs an
  /// error and ignores it).
  public var userIdentifier: String? {
    get { state.withLock { $0.userIdentifier } }
    set {
      if let newValue, newValue.utf16.count > Self.maxUserIdentifierLength { return }
      state.withLock { $0.userIdentifier = newValue }
    }
  }

  /// Whether initialization finished.
  public var isInitialized: Bool { state.withLock { $0.initialized } }

  /// Initializes the SDK, as `ALSdk.shared().initialize(with: initConfig) { configuration in … }`.
  ///
  /// - Parameters:
  ///   - configuration: The SDK key and settings.
  ///   - completionHandler: Called on the scheduler once the SDK is ready.
  public func initialize(
    with configuration: ALSdkInitializationConfiguration,
    completionHandler: (@Sendable (ALSdkConfiguration) -> Void)? = nil
  ) {
    initializeSdk(completionHandler: completionHandler)
  }

  /// Initializes the SDK (the older entry point). Calling it again is harmless: the handler is
  /// called once initialization is done.
  ///
  /// - Parameter completionHandler: Called on the scheduler once the SDK is ready.
  public func initializeSdk(completionHandler: (@Sendable (ALSdkConfiguration) -> Void)? = nil) {
    let handler: @Sendable (ALSdkConfiguration) -> Void = completionHandler ?? { _ in }
    enum Step { case alreadyDone, wait, start }
    let step = state.withLock { state -> Step in
      if state.initialized { return .alreadyDone }
      state.waiting.append(handler)
      if state.initializing { return .wait }
      state.initializing = true
      return .start
    }
    switch step {
    case .alreadyDone:
      let configuration = makeConfiguration()
      scheduler.execute { handler(configuration) }
    case .wait:
      break
    case .start:
      scheduler.schedule(after: profile.initializationLatency) { [self] in
        let handlers = state.withLock { state in
          state.initialized = true
          state.initializing = false
          defer { state.waiting = [] }
          return state.waiting
        }
        let configuration = makeConfiguration()
        for handler in handlers { handler(configuration) }
      }
    }
  }

  private func makeConfiguration() -> ALSdkConfiguration {
    ALSdkConfiguration(countryCode: "US", isTestModeEnabled: false)
  }

  /// What a ``MARewardedAd/load(simulating:)`` of `adUnitIdentifier` for `auctionID` would
  /// draw under `privacy`: the keyed stream `random.derived(adUnitIdentifier, auctionID)`, so the
  /// answer does not depend on anything loaded or shown before. No side effects.
  func market(
    adUnitIdentifier: String, auctionID: UInt64, lineItemECPM: Double, privacy: MaxPrivacy
  ) -> MaxMarketOutcome {
    MaxMarketOutcome(
      random.derived(adUnitIdentifier, auctionID), profile: profile, lineItemECPM: lineItemECPM,
      privacy: privacy)
  }

  /// Internal sizes, for tests that check nothing grows with the number of loads.
  var bookkeeping: (rewardedAds: Int, waitingInitializers: Int) {
    state.withLock { ($0.rewardedAds.count, $0.waiting.count) }
  }

  /// The one `MARewardedAd` of this SDK instance for `adUnitIdentifier`.
  func rewardedAd(for adUnitIdentifier: String) -> MARewardedAd {
    state.withLock { state in
      if let existing = state.rewardedAds[adUnitIdentifier] { return existing }
      let made = MARewardedAd(adUnitIdentifier: adUnitIdentifier, sdk: self)
      state.rewardedAds[adUnitIdentifier] = made
      return made
    }
  }
}

/// Whether a full-screen ad of one SDK instance is on screen (MAX error −23 semantics).
final class FullscreenSlot: Sendable {
  private let showing = Locked(false)

  /// Claims the screen; `false` when another ad already holds it.
  func claim() -> Bool {
    showing.withLock { showing in
      if showing { return false }
      showing = true
      return true
    }
  }

  /// Releases the screen.
  func release() { showing.withLock { $0 = false } }
}
