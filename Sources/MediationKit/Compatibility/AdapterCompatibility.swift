/// Whether an adapter fits this MediationKit and the network SDK it is linked with; checked by
/// ``AdapterRegistry/register(_:)``, which refuses an incompatible adapter with
/// ``MediationError/Code/incompatibleAdapter`` instead of letting it fail at start.
///
/// The rules:
/// - **Adapter API.** Compatible when the adapter's ``AdapterInfo/adapterAPIVersion`` has the
///   core's major number and a minor number no higher than the core's (patch numbers do not
///   matter). A lower major: the adapter is too old — upgrade the adapter. A higher major, or the
///   same major with a higher minor: the adapter is too new — upgrade MediationKit.
/// - **Network SDK.** Compatible when the linked SDK's ``AdapterInfo/sdkVersion`` is a semantic
///   version inside the adapter's ``AdapterInfo/supportedSDKVersions`` (numbers only; a label
///   such as `-beta` is ignored). Below the range: upgrade the SDK; at or above its end: upgrade
///   the adapter.
public enum AdapterCompatibility: Sendable, Equatable {
  /// The adapter fits.
  case compatible
  /// The adapter was built against an older major adapter API; upgrade the adapter.
  case adapterTooOld(adapter: SemanticVersion, core: SemanticVersion)
  /// The adapter was built against a newer adapter API; upgrade MediationKit.
  case adapterTooNew(adapter: SemanticVersion, core: SemanticVersion)
  /// The linked SDK is older than the adapter supports; upgrade the SDK.
  case sdkTooOld(sdk: SemanticVersion, supported: Range<SemanticVersion>)
  /// The linked SDK is newer than the adapter supports; upgrade the adapter.
  case sdkTooNew(sdk: SemanticVersion, supported: Range<SemanticVersion>)
  /// The SDK's reported version is not a semantic version, so no range can contain it.
  case unreadableSDKVersion(String)

  /// Checks `info` against this MediationKit's adapter API (or `coreAPI`, for tests).
  public static func check(_ info: AdapterInfo, coreAPI: SemanticVersion = coreAPIVersion)
    -> AdapterCompatibility
  {
    let api = info.adapterAPIVersion
    if api.major < coreAPI.major { return .adapterTooOld(adapter: api, core: coreAPI) }
    if api.major > coreAPI.major || api.minor > coreAPI.minor {
      return .adapterTooNew(adapter: api, core: coreAPI)
    }
    guard let sdk = SemanticVersion(info.sdkVersion) else { return .unreadableSDKVersion(info.sdkVersion) }
    let range = info.supportedSDKVersions
    if sdk.numbers < range.lowerBound.numbers { return .sdkTooOld(sdk: sdk, supported: range) }
    if sdk.numbers >= range.upperBound.numbers { return .sdkTooNew(sdk: sdk, supported: range) }
    return .compatible
  }

  /// Whether the adapter fits.
  public var isCompatible: Bool { self == .compatible }

  /// What is wrong and what to upgrade, naming both versions, for `info`'s adapter; `nil` when
  /// compatible. The registry's `incompatibleAdapter` error carries it as its message.
  package func explanation(for info: AdapterInfo) -> String? {
    let adapter = "\(info.displayName) adapter \(info.adapterVersion) (network '\(info.id)')"
    switch self {
    case .compatible:
      return nil
    case .adapterTooOld(let adapterAPI, let core):
      return
        "\(adapter) was built against MediationKit adapter API \(adapterAPI); this MediationKit provides "
        + "\(core). Upgrade the adapter to a version built for adapter API \(core.major).x."
    case .adapterTooNew(let adapterAPI, let core):
      return
        "\(adapter) was built against MediationKit adapter API \(adapterAPI); this MediationKit provides "
        + "\(core). Upgrade MediationKit to one providing adapter API \(adapterAPI.major).\(adapterAPI.minor) "
        + "or later (within major \(adapterAPI.major)), or use an adapter version built for \(core.major).\(core.minor)."
    case .sdkTooOld(let sdk, let range):
      return
        "\(adapter) supports \(info.displayName) SDK \(Self.rangeText(range)); the linked SDK is \(sdk). "
        + "Upgrade the \(info.displayName) SDK to \(range.lowerBound.numbers) or later."
    case .sdkTooNew(let sdk, let range):
      return
        "\(adapter) supports \(info.displayName) SDK \(Self.rangeText(range)); the linked SDK is \(sdk). "
        + "Upgrade the adapter to a version that supports SDK \(sdk.numbers)."
    case .unreadableSDKVersion(let text):
      return
        "\(adapter) reports SDK version '\(text)', which is not MAJOR.MINOR.PATCH; its supported range "
        + "\(Self.rangeText(info.supportedSDKVersions)) cannot be checked. Report the SDK's version as a semantic version."
    }
  }

  /// `13.0.0..<14.0.0` as ">= 13.0.0, < 14.0.0".
  package static func rangeText(_ range: Range<SemanticVersion>) -> String {
    ">= \(range.lowerBound), < \(range.upperBound)"
  }
}

extension AdapterCompatibility {
  /// MediationKit's adapter API: the version of the seam adapters are written against
  /// (``RewardedAdapter``, ``AdapterAd``, ``AdapterSignal`` and the request types), which
  /// ``check(_:coreAPI:)`` compares an adapter's ``AdapterInfo/adapterAPIVersion`` with.
  ///
  /// The version follows semantic versioning for adapter authors: the minor number goes up when
  /// the seam gains something with a default (an adapter built for an older minor still works),
  /// the major number when it changes incompatibly.
  ///
  /// 1.1 added ``RewardedAdapter/privacyDidChange(_:)`` (with a default) and ``ConsentReadBack``;
  /// 1.2 added `AdapterLoadRequest.withdrawals` (an ad that goes away before its show),
  /// ``AdapterSignal/Sink/show`` (a show's identity) and ``GlobalListenerRouter``;
  /// 2.0 is incompatible: ``AdapterEnvironment`` carries only the scheduler and the random stream
  /// (a simulated network takes its wall clock and callback sender as parameters of its
  /// registration), the seam's types are nested (`AdapterSignal.NetworkReward`,
  /// `AdapterSignal.Sink`, `AdapterRegistry.Registration`), and a withdrawal may be
  /// `configurationChanged`; 2.1 gives each loaded ad one sink for its withdrawal and its show's
  /// signals (``AdapterLoadRequest/sink``, ``AdapterSignal/Sink/withdraw(_:)``), and deprecates
  /// `AdapterLoadRequest.withdrawals` and `AdapterWithdrawal.Sink`.
  public static let coreAPIVersion = SemanticVersion(2, 1, 0)
}
