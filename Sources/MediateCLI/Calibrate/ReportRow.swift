import Foundation
import MediationKit

/// One row of a vendor report, as `calibrate` uses it: where it came from, its day, its
/// segments, the network and placement it is about, and its counts.
struct ReportRow: Equatable {
  enum Kind: String, Equatable, CaseIterable {
    case max = "MAX report"
    case admob = "AdMob report"
  }

  var kind: Kind
  var file: String
  /// Where in the file, as messages name it: `line 12`, `rows[12]`.
  var place: String
  var day: String?
  /// The row's values of the dimensions calibrate can segment by (`country` → `US`).
  var dimensions: [String: String]
  var app: String?
  /// The network as the report names it, and the MediationKit network that name maps to.
  var networkName: String
  var network: NetworkID?
  /// The network's placement id as the report names it; empty when the report has none for the row.
  var placement: String
  /// Where the line item's placement id may be, best first (AdMob: the ad source instance's label,
  /// then, for the AdMob Network, the ad unit).
  var placementCandidates: [String]
  var attempts: Int?
  var responses: Int?
  var impressions: Int?
  var revenueUSD: Double?
  /// Every dimension value of the row, for finding rows given twice (the same day and keys).
  var identity: [String]

  /// The counts, for comparing two rows with the same identity.
  var metrics: [Double?] {
    [attempts.map(Double.init), responses.map(Double.init), impressions.map(Double.init), revenueUSD]
  }
}

/// How the vendors' reports name MediationKit's networks. A name is matched without case, spaces
/// or punctuation, against each registered network's id and display name and these aliases:
/// AppLovin's own demand for `max`, AdMob's for `google`.
struct ReportNetworks {
  /// The AdMob Network's ad source id in the AdMob API's mediation report.
  static let admobNetworkSourceID = "5450213213286189855"
  static let aliases: [String: NetworkID] = [
    "applovin": "max", "applovinmax": "max", "applovinnetwork": "max", "applovinbidding": "max",
    "admob": "google", "googleadmob": "google", "admobnetwork": "google", "admobbidding": "google",
    "googlebidding": "google", "googlebiddingandgoogleadmob": "google", "admobdefault": "google",
  ]

  private let names: [String: NetworkID]
  private let displayNames: [NetworkID: String]

  init(_ infos: [AdapterInfo]) {
    var names = Self.aliases
    var displayNames: [NetworkID: String] = [:]
    for info in infos {
      names[Self.normalized(info.id.rawValue)] = info.id
      names[Self.normalized(info.displayName)] = info.id
      displayNames[info.id] = info.displayName
    }
    self.names = names
    self.displayNames = displayNames
  }

  /// The network `name` stands for, if any.
  func network(named name: String) -> NetworkID? {
    if name == Self.admobNetworkSourceID { return "google" }
    if name.hasPrefix("mediationkit:") { return names[Self.normalized(String(name.dropFirst(13)))] }
    return names[Self.normalized(name)]
  }

  /// The name a report export gives `network`: its display name.
  func displayName(_ network: NetworkID) -> String { displayNames[network] ?? network.rawValue }

  static func normalized(_ name: String) -> String {
    String(
      name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
  }
}
