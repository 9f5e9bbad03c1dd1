/// What a new configuration changes on a running mediator, zone by zone: the zones it removes, and
/// for each zone it keeps or adds, a one-line summary of what changed (`nil` when nothing did),
/// for the ``RewardedAdEvent/Diagnostic/Kind/configurationApplied`` diagnostic. A pure value.
///
/// A line item is known by its network and placement id: one with the same two in both
/// configurations is the same line item (kept, changed, switched off or on), others are added or
/// removed.
struct LiveChange {
  /// The zones of the old configuration the new one does not name, in the old one's order.
  let removedZones: [String]
  private let summaries: [String: String]

  init(from old: MediationConfig, to new: MediationConfig) {
    let oldZones = Dictionary(old.zones.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let newIDs = Set(new.zones.map(\.id))
    removedZones = old.zones.map(\.id).filter { !newIDs.contains($0) }
    var summaries: [String: String] = [:]
    for zone in new.zones {
      guard let before = oldZones[zone.id] else {
        summaries[zone.id] = "zone added with \(Self.count(zone.lineItems.count, "line item"))"
        continue
      }
      let parts = Self.changes(of: before, in: old, to: zone, in: new)
      if !parts.isEmpty { summaries[zone.id] = parts.joined(separator: "; ") }
    }
    self.summaries = summaries
  }

  /// What changed in zone `id`; `nil` when nothing did (or the zone is removed).
  func summary(ofZone id: String) -> String? { summaries[id] }

  /// A line item's identity across configurations.
  struct Key: Hashable {
    let network: NetworkID
    let placementID: String

    init(_ item: ZoneConfig.LineItem) {
      network = item.network
      placementID = item.placementId
    }

    var name: String { "\(network)/\(placementID)" }
  }

  private static func changes(
    of before: ZoneConfig, in old: MediationConfig, to after: ZoneConfig, in new: MediationConfig
  ) -> [String] {
    if before == after && old.disabledNetworks == new.disabledNetworks { return [] }
    let oldItems = Dictionary(before.lineItems.map { (Key($0), $0) }, uniquingKeysWith: { first, _ in first })
    let newKeys = Set(after.lineItems.map(Key.init))
    var added: [Key] = []
    var changed: [Key] = []
    var switchedOff: [Key] = []
    var switchedOn: [Key] = []
    for item in after.lineItems {
      let id = Key(item)
      guard let previous = oldItems[id] else {
        added.append(id)
        continue
      }
      let (wasOn, isOn) = (old.isEnabled(previous), new.isEnabled(item))
      if wasOn && !isOn {
        switchedOff.append(id)
      } else if !wasOn && isOn {
        switchedOn.append(id)
      }
      var comparable = previous
      comparable.disabled = item.disabled
      if comparable != item { changed.append(id) }
    }
    let removed = before.lineItems.map(Key.init).filter { !newKeys.contains($0) }
    var parts: [String] = []
    for (label, ids) in [
      ("removed", removed), ("added", added), ("changed", changed), ("switched off", switchedOff),
      ("switched on", switchedOn),
    ] where !ids.isEmpty {
      parts.append("line items \(label): \(ids.map(\.name).joined(separator: ", "))")
    }
    var settingsBefore = before
    settingsBefore.lineItems = after.lineItems
    if settingsBefore != after { parts.append("zone settings changed") }
    return parts
  }

  private static func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
}
