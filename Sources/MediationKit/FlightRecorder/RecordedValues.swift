/// The plain values a flight recording is made of: what a zone input carried, with every object
/// (an ad, an adapter, a cancellation handle) left out or named by a number, and every text from
/// outside capped. Each is `Codable`; a recording file is these values as JSON
/// (see the FlightRecorder article for the format).

/// Text from outside (an SDK's error message, a configuration note) as a recording keeps it: at
/// most 256 characters, so one input's record stays small.
func recordedText(_ text: String) -> String {
  text.count <= 256 ? text : String(text.prefix(255)) + "…"
}

/// The privacy signals a load started with: flags only. The IAB strings' content is left out
/// (`nil` with `…_present` telling whether there was one) unless the recorder was asked to keep it.
struct RecordedPrivacy: Codable, Sendable, Equatable {
  var hasUserConsent: Bool?
  var doNotSell: Bool?
  var isChildDirected: Bool
  var gdprApplies: Bool?
  var tcStringPresent: Bool
  var gppStringPresent: Bool
  var usPrivacyStringPresent: Bool
  var gppSectionIDs: [Int]
  /// The strings themselves, only with ``MediatorOptions/FlightRecorder/keepsConsentStrings``.
  var tcString: String?
  var gppString: String?
  var usPrivacyString: String?

  init(_ privacy: PrivacySettings, keepingStrings: Bool) {
    hasUserConsent = privacy.hasUserConsent
    doNotSell = privacy.doNotSell
    isChildDirected = privacy.isChildDirected
    gdprApplies = privacy.iab.gdprApplies
    tcStringPresent = privacy.iab.tcString != nil
    gppStringPresent = privacy.iab.gppString != nil
    usPrivacyStringPresent = privacy.iab.usPrivacyString != nil
    gppSectionIDs = Array(privacy.iab.gppSectionIDs.prefix(64))
    if keepingStrings {
      tcString = privacy.iab.tcString.map(recordedText)
      gppString = privacy.iab.gppString.map(recordedText)
      usPrivacyString = privacy.iab.usPrivacyString.map(recordedText)
    }
  }

  /// The signals a replayed load is given: the flags, and the strings when they were kept.
  var settings: PrivacySettings {
    var settings = PrivacySettings()
    settings.hasUserConsent = hasUserConsent
    settings.doNotSell = doNotSell
    settings.isChildDirected = isChildDirected
    settings.iab = IABConsent(
      tcString: tcString, gdprApplies: gdprApplies, gppString: gppString, gppSectionIDs: gppSectionIDs,
      usPrivacyString: usPrivacyString)
    return settings
  }
}

/// The networks' start-up a load started with (``NetworkAvailability``).
struct RecordedAvailability: Codable, Sendable, Equatable {
  var registered: [String]
  var refusals: [String: String]

  init(_ availability: NetworkAvailability) {
    registered = availability.registered.map(\.rawValue).sorted()
    refusals = Dictionary(
      uniqueKeysWithValues: availability.refusals.map { ($0.key.rawValue, recordedText($0.value)) })
  }

  var availability: NetworkAvailability {
    NetworkAvailability(
      registered: Set(registered.map { NetworkID($0) }),
      refusals: Dictionary(uniqueKeysWithValues: refusals.map { (NetworkID($0.key), $0.value) }))
  }
}

struct RecordedError: Codable, Sendable, Equatable {
  var kind: AdapterError.Kind
  var vendorCode: Int?
  var message: String

  init(_ error: AdapterError) {
    kind = error.kind
    vendorCode = error.vendorCode
    message = recordedText(error.message)
  }

  var error: AdapterError { AdapterError(kind, vendorCode: vendorCode, message: message) }
}

struct RecordedBid: Codable, Sendable, Equatable {
  var price: Double
  var token: String

  init(_ bid: AdapterBid) {
    price = bid.price
    token = recordedText(bid.token)
  }

  var bid: AdapterBid { AdapterBid(price: price, token: token) }
}

/// A loaded ad: its numbers, and `token`, which names the ad object (an SDK reporting the same
/// ad twice reports the same token).
struct RecordedAd: Codable, Sendable, Equatable {
  var token: Int
  var ecpm: Double?
  var lifetimeNS: Int64?
}

struct RecordedWithdrawal: Codable, Sendable, Equatable {
  var kind: AdapterWithdrawal.Kind
  var message: String

  init(_ withdrawal: AdapterWithdrawal) {
    kind = withdrawal.kind
    message = recordedText(withdrawal.message)
  }

  var withdrawal: AdapterWithdrawal { AdapterWithdrawal(kind, message: message) }
}

/// An adapter's show signal.
struct RecordedSignal: Codable, Sendable, Equatable {
  enum Kind: String, Codable, Sendable {
    case displayed, clicked, dismissed
    case revenuePaid = "revenue_paid"
    case rewarded
    case showFailed = "show_failed"
  }

  var type: Kind
  var usd: Double?
  var precision: AdapterSignal.RevenuePrecision?
  /// What the network said it rewarded, when it said.
  var reward: AdapterSignal.NetworkReward?
  var error: RecordedError?

  init(_ signal: AdapterSignal) {
    switch signal {
    case .displayed: type = .displayed
    case .clicked: type = .clicked
    case .dismissed: type = .dismissed
    case .revenuePaid(let revenue):
      type = .revenuePaid
      usd = revenue.usd
      precision = revenue.precision
    case .rewarded(let reward):
      type = .rewarded
      self.reward = reward.map { .init(type: recordedText($0.type), amount: $0.amount) }
    case .showFailed(let error):
      type = .showFailed
      self.error = RecordedError(error)
    }
  }

  var signal: AdapterSignal? {
    switch type {
    case .displayed: return .displayed
    case .clicked: return .clicked
    case .dismissed: return .dismissed
    case .revenuePaid:
      guard let usd, let precision else { return nil }
      return .revenuePaid(.init(usd: usd, precision: precision))
    case .rewarded: return .rewarded(reward)
    case .showFailed: return error.map { .showFailed($0.error) }
    }
  }
}

/// One arming of one of the zone's timers (``TimerID``).
struct RecordedTimer: Codable, Sendable, Equatable, Hashable {
  var kind: String
  var generation: Int

  init(_ id: TimerID) {
    kind = id.kind.rawValue
    generation = id.generation
  }

  var id: TimerID? {
    TimerID.Kind(rawValue: kind).map { TimerID(kind: $0, generation: generation) }
  }
}

/// A registered network as a setup saw it: what the replay's stand-in adapter declares.
struct RecordedNetwork: Codable, Sendable, Equatable {
  var id: String
  var adapterVersion: String
  var sdkVersion: String
  var capabilities: [AdapterInfo.Capability]

  init(_ info: AdapterInfo) {
    id = info.id.rawValue
    adapterVersion = recordedText(info.adapterVersion)
    sdkVersion = recordedText(info.sdkVersion)
    capabilities = info.capabilities.sorted { $0.rawValue < $1.rawValue }
  }
}

/// A zone's setup (``ZoneSetup``): the zone its loads use (the user's variant), the zone as
/// configured, the arms, and the networks registered. No user id.
struct RecordedSetup: Codable, Sendable, Equatable {
  var zone: ZoneConfig
  var base: ZoneConfig
  var experimentArms: [String: String]
  var configurationVersion: String?
  var disabledNetworks: [String]
  var networks: [RecordedNetwork]

  init(_ setup: ZoneSetup) {
    zone = setup.zone
    base = setup.base
    experimentArms = setup.experimentArms
    configurationVersion = setup.version
    disabledNetworks = setup.disabledNetworks.map(\.rawValue).sorted()
    networks = setup.networkInfos.values.sorted { $0.id < $1.id }.map(RecordedNetwork.init)
  }
}

/// A change from outside the zone (``ZoneChange``).
struct RecordedChange: Codable, Sendable, Equatable {
  enum Kind: String, Codable, Sendable { case configuration, user, removed }

  var type: Kind
  var setup: RecordedSetup?
  var note: String?
  var reason: String?

  init(_ change: ZoneChange) {
    switch change {
    case .configuration(let setup, let note):
      type = .configuration
      self.setup = RecordedSetup(setup)
      self.note = note.map(recordedText)
    case .user(let setup):
      type = .user
      self.setup = RecordedSetup(setup)
    case .removed(let reason):
      type = .removed
      self.reason = recordedText(reason)
    }
  }
}
