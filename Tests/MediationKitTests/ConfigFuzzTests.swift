import Foundation
import MediationKit
import Testing

/// A JSON document that can say what `JSONEncoder` will not: duplicate keys, raw number tokens
/// like `1e400`, escapes like a lone `\ud800`.
indirect enum FuzzJSON {
  case null
  case bool(Bool)
  /// A number token, written as is.
  case number(String)
  /// A string's contents, already escaped, written between quotes as is.
  case string(String)
  case array([FuzzJSON])
  /// Keys in order; duplicates allowed.
  case object([(String, FuzzJSON)])

  /// A string value from plain text.
  static func text(_ text: String) -> FuzzJSON {
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      return .string(text)
    }
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return .string(escaped)
  }

  static func number(_ value: some Numeric) -> FuzzJSON { .number("\(value)") }

  var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .number(let token): output += token
    case .string(let contents): output += "\"\(contents)\""
    case .array(let items):
      output += "["
      for (index, item) in items.enumerated() {
        if index > 0 { output += "," }
        item.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { output += "," }
        FuzzJSON.text(member.0).write(to: &output)
        output += ":"
        member.1.write(to: &output)
      }
      output += "}"
    }
  }

  enum Component: Equatable {
    case key(String)
    case index(Int)
  }

  /// A random node's path: from the root, stops with probability `stop` at each level.
  func randomPath(_ random: inout SeededRandom, stop: Double = 0.2) -> [Component] {
    var path: [Component] = []
    var node = self
    while !random.chance(stop) {
      switch node {
      case .array(let items) where !items.isEmpty:
        let index = Int(random.next() % UInt64(items.count))
        path.append(.index(index))
        node = items[index]
      case .object(let members) where !members.isEmpty:
        let member = members[Int(random.next() % UInt64(members.count))]
        path.append(.key(member.0))
        node = member.1
      default: return path
      }
    }
    return path
  }

  /// Applies `change` to the node at `path` (the first member of a duplicated key), in place.
  mutating func modify(at path: ArraySlice<Component>, _ change: (inout FuzzJSON) -> Void) {
    guard let first = path.first else { return change(&self) }
    switch (self, first) {
    case (.array(var items), .index(let index)) where items.indices.contains(index):
      self = .null  // keep the child uniquely referenced
      items[index].modify(at: path.dropFirst(), change)
      self = .array(items)
    case (.object(var members), .key(let key)):
      guard let index = members.firstIndex(where: { $0.0 == key }) else { return }
      self = .null
      members[index].1.modify(at: path.dropFirst(), change)
      self = .object(members)
    default: break
    }
  }
}

@Suite("Config fuzzing")
struct ConfigFuzzTests {
  static let known: [NetworkID] = ["empower", "google", "max"]
  static let documents = 10_000

  // MARK: Valid configurations

  static func pick<T>(_ values: [T], _ random: inout SeededRandom) -> T {
    values[Int(random.next() % UInt64(values.count))]
  }

  static func number(in range: ClosedRange<Double>, _ random: inout SeededRandom) -> FuzzJSON {
    let value = range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
    return random.chance(0.5) ? .number(Int(value)) : .number((value * 100).rounded() / 100)
  }

  /// A random configuration that validation accepts.
  static func validConfig(_ random: inout SeededRandom) -> FuzzJSON {
    var zones: [FuzzJSON] = []
    for zoneIndex in 0..<Int(1 + random.next() % 3) {
      let strategy = pick(["waterfall", "bidding", "hybrid", nil], &random)
      var items: [FuzzJSON] = []
      let itemCount = Int(1 + random.next() % 4)
      for itemIndex in 0..<itemCount {
        var item: [(String, FuzzJSON)] = [
          ("network", .text(pick(known, &random).rawValue)),
          ("placementId", .text("p-\(zoneIndex)-\(itemIndex)")),
          ("priority", .number(Int(random.next() % 1001))), ("ecpm", number(in: 0...10_000, &random)),
          ("timeoutSeconds", number(in: 1...120, &random)),
        ]
        let bidder = itemIndex == 0 && strategy != nil && strategy != "waterfall"
        if bidder || random.chance(0.3) { item.append(("bidding", .bool(bidder || random.chance(0.5)))) }
        if random.chance(0.3) { item.append(("bidFloor", number(in: 0...100, &random))) }
        items.append(.object(item))
      }
      var zone: [(String, FuzzJSON)] = [
        ("id", .text("zone-\(zoneIndex)")),
        ("reward", .object([("type", .text("coins")), ("amount", .number(Int(1 + random.next() % 100)))])),
        ("lineItems", .array(items)), ("loadTimeoutSeconds", number(in: 1...600, &random)),
        ("adExpirySeconds", number(in: 1...86_400, &random)),
        ("rewardGraceSeconds", number(in: 0...60, &random)),
        ("autoReload", .bool(random.chance(0.5))),
      ]
      if let strategy { zone.append(("strategy", .text(strategy))) }
      if random.chance(0.5) { zone.append(("auctionTimeoutSeconds", number(in: 1...60, &random))) }
      if random.chance(0.3) {
        zone.append(
          (
            "caps",
            .object([
              ("maxPerHour", .number(Int(1 + random.next() % 10))),
              ("minIntervalSeconds", number(in: 0...600, &random)),
            ])
          ))
      }
      for index in zone.indices.reversed() where index > 0 {  // field order does not matter
        zone.swapAt(index, Int(random.next() % UInt64(index + 1)))
      }
      zones.append(.object(zone))
    }
    return .object([("zones", .array(zones))])
  }

  // MARK: Mutations

  /// Values of every JSON type, for wrong-type mutations.
  static let wrongTypes: [FuzzJSON] = [
    .null, .bool(true), .bool(false), .number("0"), .number("-1"), .number("3.5"), .text("text"), .text(""),
    .array([]), .array([.number("1")]), .object([]), .object([("id", .text("x"))]),
  ]
  static let hugeNumbers = [
    "1e308", "1e400", "-1e400", "1.7976931348623157e308", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "1e-400", "123456789012345678901234567890", "0.0000000000000000000001",
  ]
  static let nonFinite = ["NaN", "Infinity", "-Infinity", "nan", "inf", "+Infinity"]
  static let negatives = ["-1", "-0", "-0.0", "-1e-9", "-5", "-86401", "-1e308"]
  /// Escaped string contents: emoji, RTL and zero-width marks, NUL, lone surrogates, BOM, combining marks.
  static let oddStrings = [
    "🎯🏆", "\\ud83c\\udfaf", "\u{200F}zone\u{200E}", "\\u202Emax", "\\u0000", "a\\u0000b", "\\ud800",
    "\\udc00",
    "\\ud800\\u0041", "\u{FEFF}", "e\u{301}\u{301}\u{301}", "\\n\\t", " ", "\u{3000}", "max ", "\\\\", "\\\"",
    String(repeating: "x", count: 5_000),
  ]
  static let fieldNames = [
    "id", "reward", "lineItems", "loadTimeoutSeconds", "adExpirySeconds", "rewardGraceSeconds", "autoReload",
    "strategy", "auctionTimeoutSeconds", "caps", "network", "placementId", "priority", "ecpm",
    "timeoutSeconds",
    "bidding", "bidFloor", "type", "amount", "zones", "maxPerHour", "maxPerDay", "minIntervalSeconds",
    "extra", "",
  ]

  static func randomValue(_ random: inout SeededRandom) -> FuzzJSON {
    switch random.next() % 5 {
    case 0: pick(wrongTypes, &random)
    case 1: .number(pick(hugeNumbers, &random))
    case 2: .text(pick(nonFinite, &random))
    case 3: .number(pick(negatives, &random))
    default: .string(pick(oddStrings, &random))
    }
  }

  static func deeplyNested(_ random: inout SeededRandom) -> FuzzJSON {
    let depth = Int(1 + random.next() % 600)
    let asArrays = random.chance(0.5)
    var node: FuzzJSON = random.chance(0.5) ? .number("1") : .null
    for _ in 0..<depth { node = asArrays ? .array([node]) : .object([("a", node)]) }
    return node
  }

  /// One seeded change to the tree; returns where it happened.
  static func mutate(_ json: inout FuzzJSON, _ random: inout SeededRandom) -> [FuzzJSON.Component] {
    let path = json.randomPath(&random)
    let kind = random.next() % 10
    json.modify(at: path[...]) { node in
      switch kind {
      case 0: node = pick(wrongTypes, &random)
      case 1: node = .number(pick(hugeNumbers, &random))
      case 2: node = .text(pick(nonFinite, &random))
      case 3: node = .number(pick(negatives, &random))
      case 4: node = deeplyNested(&random)
      case 5: node = random.chance(0.5) ? .string(pick(oddStrings, &random)) : .text("")
      default:
        switch node {
        case .object(var members) where !members.isEmpty:
          let index = Int(random.next() % UInt64(members.count))
          switch kind {
          case 6:
            members.append((members[index].0, random.chance(0.5) ? members[index].1 : randomValue(&random)))
          case 7: members.remove(at: index)
          default: members.insert((pick(fieldNames, &random) + "_x", randomValue(&random)), at: index)
          }
          node = .object(members)
        case .array(var items) where !items.isEmpty:
          let index = Int(random.next() % UInt64(items.count))
          switch kind {
          case 6: items.append(items[index])
          case 7: items.remove(at: index)
          default: items.insert(randomValue(&random), at: index)
          }
          node = .array(items)
        default: node = randomValue(&random)
        }
      }
    }
    return path
  }

  /// Byte-level damage: truncation, a flipped, dropped or inserted byte.
  static func damage(_ bytes: inout [UInt8], _ random: inout SeededRandom) {
    guard !bytes.isEmpty else { return }
    let at = Int(random.next() % UInt64(bytes.count))
    switch random.next() % 4 {
    case 0: bytes.removeSubrange(at...)
    case 1: bytes[at] ^= UInt8(1 << (random.next() % 8))
    case 2: bytes.remove(at: at)
    default: bytes.insert(pick(Array("{}[],:\"\\0e-.".utf8) + [0, 0xFF, 0xC3], &random), at: at)
    }
  }

  // MARK: The property

  /// The zone index a path lies inside, if any.
  static func zoneIndex(_ path: [FuzzJSON.Component]) -> Int? {
    guard path.count >= 2, path[0] == .key("zones"), case .index(let index) = path[1] else { return nil }
    return index
  }

  /// Loads one document: what is wrong with the outcome (nil when the property holds), and the
  /// rejection, if it was rejected.
  static func check(_ data: Data, mutatedZone: Int?) -> (
    failure: String?, rejection: MediationConfig.LoadError?
  ) {
    do {
      let config = try MediationConfig.load(data, source: "fuzz.json", knownNetworks: known)
      let issues = config.validate(knownNetworks: known) + config.validate()
      return (issues.isEmpty ? nil : "accepted, but validate() reports \(issues)", nil)
    } catch {
      if error.issues.isEmpty { return ("MediationConfig.LoadError without issues", error) }
      for issue in error.issues {
        if issue.message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
          return ("issue at '\(issue.path)' has an empty message", error)
        }
        guard let zone = mutatedZone else { continue }
        let inZone = issue.path == "zones[\(zone)]" || issue.path.hasPrefix("zones[\(zone)].")
        let syntax = issue.path.isEmpty && issue.message.hasPrefix("not valid JSON")
        if !inZone && !syntax {
          return ("the only change was inside zones[\(zone)], but the issue says '\(issue)'", error)
        }
      }
      return (nil, error)
    }
  }

  @Test func generatedConfigsAreValid() throws {
    var random = SeededRandom(seed: 0xC0FF_1600)
    for _ in 0..<200 {
      let json = Self.validConfig(&random).serialized
      #expect(throws: Never.self, "\(json)") {
        try MediationConfig.load(Data(json.utf8), source: "valid.json", knownNetworks: Self.known)
      }
    }
  }

  @Test func mutatedConfigsNeverCrashAndFailWithPreciseIssues() {
    var outcomes = (accepted: 0, rejected: 0, syntax: 0, inZone: 0)
    for run in 0..<Self.documents {
      let seed = 0xF022_0000 + UInt64(run)
      var random = SeededRandom(seed: seed)
      var json = Self.validConfig(&random)
      let mutations = random.chance(0.6) ? 1 : Int(2 + random.next() % 3)
      var paths: [[FuzzJSON.Component]] = []
      for _ in 0..<mutations { paths.append(Self.mutate(&json, &random)) }
      var bytes = Array(json.serialized.utf8)
      let damaged = random.chance(0.15)
      if damaged { Self.damage(&bytes, &random) }
      // Path precision is checked when a single, structural change lies inside one zone.
      let zone = !damaged && mutations == 1 ? Self.zoneIndex(paths[0]) : nil
      let (failure, rejection) = Self.check(Data(bytes), mutatedZone: zone)
      if let failure {
        let document = String(decoding: bytes.prefix(2_000), as: UTF8.self)
        Issue.record("seed \(seed): \(failure)\ndocument: \(document)")
        return
      }
      if let rejection {
        outcomes.rejected += 1
        if rejection.issues.contains(where: { $0.message.hasPrefix("not valid JSON") }) {
          outcomes.syntax += 1
        }
        if zone != nil { outcomes.inZone += 1 }
      } else {
        outcomes.accepted += 1
      }
    }
    // The mutations reach every kind of outcome.
    #expect(outcomes.accepted > Self.documents / 50, "\(outcomes)")
    #expect(outcomes.syntax > Self.documents / 50, "\(outcomes)")
    #expect(outcomes.inZone > Self.documents / 5, "\(outcomes)")
  }

  /// Known bug: validation checks `auctionTimeoutSeconds` only for `bidding` and `hybrid` zones,
  /// but the zone's `LoadBudget` turns it into a `Duration` for every zone, which traps when it is not
  /// finite or too large: such a waterfall config loads, then crashes the app on its first load.
  @Test func waterfallZonesRejectAnUnusableAuctionTimeout() {
    for value in [#""NaN""#, #""Infinity""#, "1e308", "-1e300"] {
      let json = #"""
        {"zones": [{"id": "z", "reward": {"type": "coins", "amount": 5}, "loadTimeoutSeconds": 30,
          "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": false, "auctionTimeoutSeconds": \#(value),
          "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}]}]}
        """#
      let config = try? MediationConfig.load(Data(json.utf8), source: "t.json", knownNetworks: Self.known)
      #expect(config == nil, "accepted auctionTimeoutSeconds \(value)")
    }
  }
}
