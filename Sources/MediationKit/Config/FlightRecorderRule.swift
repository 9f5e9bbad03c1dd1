/// Which users' devices record (``MediatorOptions/FlightRecorder``), set by the configuration so a
/// server can switch the flight recorder on for one user, a support ticket's, or a sample, without
/// a release:
/// ```json
/// "flightRecorder": { "userIDs": ["qa-device-7"], "hashedUserIDs": ["9f86d0…"], "fraction": 0.01 }
/// ```
/// A device records when the mediator's user id (``Mediator/setUserID(_:)``) is listed in
/// `userIDs`, or its SHA-256 (lowercase hex of the UTF-8 bytes) is listed in `hashedUserIDs` (so the
/// configuration every device fetches carries no user id), or the user falls in the `fraction` of
/// users (a stable bucket of the user id, like an experiment's arm). Without a user id, only
/// ``MediatorOptions/FlightRecorder/isEnabled`` switches recording on. Every field may be left out.
public struct FlightRecorderRule: Codable, Sendable, Equatable {
  public var userIDs: [String]
  public var hashedUserIDs: [String]
  /// The share of users who record, from 0 to 1.
  public var fraction: Double

  public init(userIDs: [String] = [], hashedUserIDs: [String] = [], fraction: Double = 0) {
    self.userIDs = userIDs
    self.hashedUserIDs = hashedUserIDs
    self.fraction = fraction
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    userIDs = try container.decodeIfPresent([String].self, forKey: .userIDs) ?? []
    hashedUserIDs = try container.decodeIfPresent([String].self, forKey: .hashedUserIDs) ?? []
    fraction = try container.decodeIfPresent(Double.self, forKey: .fraction) ?? 0
  }

  private enum CodingKeys: String, CodingKey { case userIDs, hashedUserIDs, fraction }

  /// The most ids each list may hold.
  public static let maxListedUsers = 1000

  /// Whether the user `userID` records; `hash` is the platform's SHA-256 (lowercase hex), `nil`
  /// where there is none (hashed ids then match no one).
  package func selects(_ userID: String?, hash: (@Sendable (String) -> String)?) -> Bool {
    guard let userID else { return false }
    if userIDs.contains(userID) { return true }
    if let hash, !hashedUserIDs.isEmpty, hashedUserIDs.contains(hash(userID)) { return true }
    guard fraction > 0 else { return false }
    let scale: UInt64 = 1_000_000
    return ArmAssignment.bucket(forUser: userID, experiment: "flight-recorder", total: scale)
      < UInt64((min(fraction, 1) * Double(scale)).rounded())
  }

  /// What is wrong with the rule, path by path under `path`.
  func issues(at path: String) -> [MediationConfig.Issue] {
    var issues: [MediationConfig.Issue] = []
    if !(0...1).contains(fraction) {
      issues.append(
        .init(path: "\(path).fraction", message: "must be a number from 0 to 1, found \(fraction)"))
    }
    for (name, list) in [("userIDs", userIDs), ("hashedUserIDs", hashedUserIDs)]
    where list.count > Self.maxListedUsers {
      issues.append(
        .init(
          path: "\(path).\(name)",
          message: "must list at most \(Self.maxListedUsers) ids, found \(list.count)"))
    }
    for (index, id) in userIDs.enumerated() where id.isEmpty || id.utf16.count > Mediator.maxUserIDLength {
      issues.append(
        .init(
          path: "\(path).userIDs[\(index)]",
          message:
            "must be a user id of 1 to \(Mediator.maxUserIDLength) UTF-16 code units, found \(id.utf16.count)"
        ))
    }
    for (index, hash) in hashedUserIDs.enumerated()
    where hash.utf8.count != 64
      || !hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    {
      issues.append(
        .init(
          path: "\(path).hashedUserIDs[\(index)]",
          message: "must be a SHA-256 in 64 lowercase hex digits, found \"\(MessageFormat.excerpt(hash))\""))
    }
    return issues
  }
}
