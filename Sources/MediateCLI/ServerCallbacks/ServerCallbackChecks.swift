import MaxSim
import MediationKit
import RewardCallbacks

/// The network-specific checks of line items' server callbacks that MediationKit's own validation
/// cannot make (it knows no network's callback format): a MAX callback URL must be a MAX template
/// (known `{MACRO}`s, each the whole value of one query parameter).
enum ServerCallbackChecks {
  /// One issue per MAX line item whose callback URL is not a valid MAX template.
  static func issues(_ config: MediationConfig) -> [MediationConfig.Issue] {
    var issues: [MediationConfig.Issue] = []
    for (zoneIndex, zone) in config.zones.enumerated() {
      let path = "zones[\(zoneIndex)]"
      issues += Self.issues(zone.lineItems, path: "\(path).lineItems")
      for (experimentIndex, experiment) in zone.experiments.enumerated() {
        for (armIndex, arm) in experiment.arms.enumerated() {
          guard let lineItems = arm.lineItems else { continue }
          issues += Self.issues(
            lineItems, path: "\(path).experiments[\(experimentIndex)].arms[\(armIndex)].lineItems")
        }
      }
    }
    return issues
  }

  /// The issues of a zone's or an arm's line items at `path`.
  private static func issues(_ lineItems: [ZoneConfig.LineItem], path: String) -> [MediationConfig.Issue] {
    var issues: [MediationConfig.Issue] = []
    for (itemIndex, item) in lineItems.enumerated() where item.network == MaxNetwork.id {
      guard let callback = item.serverCallback else { continue }
      do {
        _ = try MaxCallbackTemplate(callback.url)
      } catch {
        issues.append(
          MediationConfig.Issue(
            path: "\(path)[\(itemIndex)].serverCallback.url",
            message: "not a valid MAX callback template: \(error)"
          ))
      }
    }
    return issues
  }

  /// Whether any line item of `zone` has a server callback.
  static func hasCallbacks(_ zone: ZoneConfig) -> Bool {
    zone.lineItems.contains { $0.serverCallback != nil }
  }

  /// `zone` without server callbacks: the simulator runs many sessions and must send nothing.
  static func withoutCallbacks(_ zone: ZoneConfig) -> ZoneConfig {
    var zone = zone
    for index in zone.lineItems.indices { zone.lineItems[index].serverCallback = nil }
    return zone
  }
}
