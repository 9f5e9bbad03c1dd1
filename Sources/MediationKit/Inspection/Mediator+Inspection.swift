extension Mediator {
  /// What a mediator holds now, for a debug screen (`MediationKitUI`'s `MediationInspectorView`)
  /// or a support report: every adapter with its versions, compatibility and start-up, the
  /// privacy signals, and every zone's configuration version, experiment arms and queue of ready
  /// ads.
  ///
  /// ``Mediator/inspect()`` makes one from the mediator's state; the zones' recent auctions and
  /// events are history, which only a ``MediationInspector`` keeps (it fills ``Zone/auctions``
  /// and ``Zone/events``).
  public struct Inspection: Sendable, Equatable {
    /// When it was taken, on the mediator's scheduler.
    public var time: Duration
    /// Every registered adapter, by network id.
    public var adapters: [Mediator.Inspection.Adapter]
    /// The privacy signals in use. Every network is given these same signals: with each load and
    /// bid request, and through ``RewardedAdapter/privacyDidChange(_:)`` when they change.
    public var privacy: PrivacySettings
    /// Every zone: the configuration's, in its order, then zones a configuration removed, then
    /// zones only the history knows (a reward redelivered for a zone no longer configured).
    public var zones: [Mediator.Inspection.Zone]

    /// Creates an inspection; ``Mediator/inspect()`` makes them, MediationKit's tests make their own.
    package init(
      time: Duration, adapters: [Mediator.Inspection.Adapter], privacy: PrivacySettings,
      zones: [Mediator.Inspection.Zone]
    ) {
      self.time = time
      self.adapters = adapters
      self.privacy = privacy
      self.zones = zones
    }
  }

  /// What the mediator holds now; see ``Mediator/Inspection``. Safe from any thread: each zone is
  /// read in one lock round, the adapters and privacy signals in one more, and no adapter or app
  /// code runs.
  public func inspect() -> Mediator.Inspection {
    let controllers = zoneControllers
    let configured = Set(config.zones.map(\.id))
    let zones = controllers.map { controller in
      let snapshot = controller.snapshot
      return Mediator.Inspection.Zone(
        id: controller.id, isConfigured: configured.contains(controller.id),
        configurationVersion: snapshot.configurationVersion, experimentArms: snapshot.experimentArms,
        readyAds: snapshot.readyAds, isLoading: snapshot.isLoading)
    }
    let statuses = Dictionary(adapterStatuses.map { ($0.network, $0) }, uniquingKeysWith: { _, last in last })
    let adapters = networks.map { info in
      let compatibility = AdapterCompatibility.check(info)
      return Mediator.Inspection.Adapter(
        info: info, compatibility: compatibility, compatibilityProblem: compatibility.explanation(for: info),
        status: statuses[info.id])
    }
    return Mediator.Inspection(
      time: context.scheduler.now, adapters: adapters, privacy: privacy, zones: zones)
  }
}

extension Mediator.Inspection {
  /// One registered adapter.
  public struct Adapter: Sendable, Equatable {
    /// Its network id, display name, adapter version, SDK version, adapter API and supported SDKs.
    public var info: AdapterInfo
    /// Whether it fits this MediationKit and its linked SDK (``AdapterCompatibility/check(_:coreAPI:)``).
    public var compatibility: AdapterCompatibility
    /// What is wrong and what to upgrade, naming both versions; `nil` when compatible.
    public var compatibilityProblem: String?
    /// Its start-up: state, what the adapter said, how long it took, when it starts; `nil` while
    /// the mediator has no status for it yet.
    public var status: Mediator.AdapterStatus?
  }

  /// One zone.
  public struct Zone: Sendable, Equatable {
    /// The zone's id.
    public var id: String
    /// Whether the configuration in use has the zone (`false` once a configuration removed it).
    public var isConfigured: Bool
    /// The version of the configuration the zone runs (``MediationConfig/version``).
    public var configurationVersion: String?
    /// The zone's experiment arms for the current user (experiment id → arm id).
    public var experimentArms: [String: String]
    /// The ready ads of its queue, oldest first.
    public var readyAds: [AdInfo]
    /// Whether a load is running.
    public var isLoading: Bool
    /// Its last auctions, oldest first: each `ready` and `failed` with every line item's fate and
    /// latency. Filled by a ``MediationInspector``; empty from ``Mediator/inspect()``.
    public var auctions: [Mediator.Inspection.Auction] = []
    /// Its last events, oldest first. Filled by a ``MediationInspector``; empty from
    /// ``Mediator/inspect()``.
    public var events: [Mediator.ZoneEvent] = []

    /// Creates a zone's inspection, without history.
    package init(
      id: String, isConfigured: Bool, configurationVersion: String?, experimentArms: [String: String],
      readyAds: [AdInfo], isLoading: Bool
    ) {
      self.id = id
      self.isConfigured = isConfigured
      self.configurationVersion = configurationVersion
      self.experimentArms = experimentArms
      self.readyAds = readyAds
      self.isLoading = isLoading
    }
  }

  /// How one load ended: the ad it made ready, or its failure.
  public struct Auction: Sendable, Equatable {
    /// When it ended, on the mediator's scheduler.
    public var time: Duration
    /// The ready ad (its winner, price, latency and line items), or the load's error (its
    /// ``MediationError/waterfall`` holds the line items).
    public var outcome: Result<AdInfo, MediationError>
    /// From the zone's `loading` to this end; `nil` when the inspector did not see the load start.
    public var duration: Duration?

    /// Creates the record of a load that ended at `time` with `outcome`.
    package init(time: Duration, outcome: Result<AdInfo, MediationError>, duration: Duration?) {
      self.time = time
      self.outcome = outcome
      self.duration = duration
    }

    /// Every line item the auction considered, in the order tried, each with its fate
    /// (``AdInfo/NetworkResponse/state``), latency and error.
    public var responses: [AdInfo.NetworkResponse] {
      switch outcome {
      case .success(let info): info.responses
      case .failure(let error): error.waterfall
      }
    }
  }
}
