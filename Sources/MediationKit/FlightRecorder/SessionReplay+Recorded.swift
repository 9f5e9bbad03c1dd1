extension SessionReplay {
  static func key(_ record: RecordedInput) -> RequestKey? {
    guard let load = record.load, let network = record.network, let placementID = record.placementID,
      let kind = record.requestKind
    else { return nil }
    return RequestKey(load: load, network: network, placementID: placementID, kind: kind)
  }

  static func describe(_ record: RecordedInput) -> String {
    guard let key = key(record) else { return "load \(record.load ?? 0)" }
    return "load \(key.load)'s \(key.kind) request to \(key.network)/\(key.placementID)"
  }

  static func setup(
    _ recorded: RecordedSetup, networks: [NetworkID: any RewardedAdapter], infos: [NetworkID: AdapterInfo],
    seed: UInt64
  ) -> ZoneSetup {
    let registered = Set(recorded.networks.map { NetworkID($0.id) })
    return ZoneSetup(
      variant: recorded.zone, of: recorded.base, userID: nil, experimentArms: recorded.experimentArms,
      version: recorded.configurationVersion,
      disabledNetworks: Set(recorded.disabledNetworks.map { NetworkID($0) }),
      adapters: networks.filter { registered.contains($0.key) },
      infos: infos.filter { registered.contains($0.key) },
      seed: seed)
  }
}

/// A recorded network in a replay: it declares what the recorded adapter declared, and is never
/// called (the replay answers for it).
final class ReplayNetwork: RewardedAdapter {
  let info: AdapterInfo

  init(info: AdapterInfo) { self.info = info }

  static func info(_ recorded: RecordedNetwork) -> AdapterInfo {
    AdapterInfo(
      id: NetworkID(recorded.id), displayName: recorded.id, adapterVersion: recorded.adapterVersion,
      sdkVersion: recorded.sdkVersion, adapterAPIVersion: AdapterCompatibility.coreAPIVersion,
      supportedSDKVersions: SemanticVersion(0, 0, 0)..<SemanticVersion(Int.max, 0, 0),
      capabilities: Set(recorded.capabilities))
  }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {}

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable { .none }
}

/// A recorded ad in a replay: one object per recorded token, so an ad reported twice is the same.
final class ReplayAd: AdapterAd {
  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
  func discard() {}
}

extension RecordedInput {
  /// The answer this record gives, addressed to the replay's request `id`; `ad` makes the object
  /// of a recorded ad's token.
  func answer(to id: RequestID, ad: (Int) -> any AdapterAd) -> ZoneInput? {
    switch type {
    case .startEnded: return .startEnded(id, refusal: reason)
    case .bidAnswered:
      if let bid { return .bidAnswered(id, .success(bid.bid)) }
      return error.map { .bidAnswered(id, .failure($0.error)) }
    case .loaded:
      guard let recorded = self.ad else { return nil }
      return .loaded(
        id,
        LoadedAd(
          AdapterLoadedAd(
            ad: ad(recorded.token), ecpm: recorded.ecpm,
            lifetime: recorded.lifetimeNS.map(Duration.nanoseconds))))
    case .loadFailed: return error.map { .loadFailed(id, $0.error) }
    case .withdrawn: return withdrawal.map { .withdrawn(id, $0.withdrawal) }
    default: return nil
    }
  }
}

extension RecordedChange {
  /// The change as an input; `setup` makes a zone setup of a recorded one.
  func input(setup: (RecordedSetup) -> ZoneSetup) -> ZoneInput? {
    switch type {
    case .removed: return .apply(.removed(reason: reason ?? ""))
    case .configuration, .user:
      guard let recorded = self.setup else { return nil }
      let made = setup(recorded)
      return .apply(type == .user ? .user(made) : .configuration(made, note: note))
    }
  }
}
