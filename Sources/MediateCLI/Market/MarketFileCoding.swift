import Foundation
import MediationKit

extension MarketFile {
  /// Reads and checks a market file: every problem names its path, what it found and what it
  /// expected (exit 65); a newer version is refused with what this `mediate` reads.
  static func read(_ data: Data, source: String) throws(CLIError) -> MarketFile {
    let root = try JSONField.document(data, source: source)
    try root.allowing([
      "mediationkitMarket", "zone", "segmentBy", "segments", "lineItems", "sources", "notes",
    ])
    let version = try root[versionKey].count()
    guard version == Self.version else {
      throw .data(
        "\(source): \(versionKey) is \(version); this mediate reads version \(Self.version) market files")
    }
    var file = MarketFile(
      zone: try root["zone"].name(), segmentBy: try root["segmentBy"].optionalString(), lineItems: [])
    if !root["segments"].isMissing {
      for field in try root["segments"].array() {
        try field.allowing(["name", "share", "auctions"])
        let name = try field["name"].name()
        if file.segments.contains(where: { $0.name == name }) {
          throw field["name"].mismatch("must name each segment once")
        }
        file.segments.append(
          Segment(
            name: name, share: try field["share"].number(in: 0...1),
            auctions: try field["auctions"].optionalCount()))
      }
    }
    if file.segmentBy != nil && file.segments.isEmpty {
      throw root["segments"].mismatch("must list the segments when segmentBy is given")
    }
    if !file.segments.isEmpty && file.segments.reduce(0, { $0 + $1.share }) <= 0 {
      throw root["segments"].mismatch("must have a share above 0")
    }
    let names = file.segments.map(\.name)
    var seen: Set<String> = []
    for field in try root["lineItems"].array() {
      try field.allowing(Estimate.keys + ["network", "placementId", "segments", "defaults"])
      let item = LineItem(
        network: NetworkID(try field["network"].name()), placementID: try field["placementId"].name(),
        estimate: try Estimate.read(field))
      guard seen.insert("\(item.network) \(item.placementID)").inserted else {
        throw field["placementId"].mismatch("must name each line item once (network and placement id)")
      }
      var read = item
      if !field["segments"].isMissing {
        for (name, segment) in try field["segments"].objectFields() {
          guard names.contains(name) else {
            throw segment.mismatch("must be one of the market's segments (\(names.joined(separator: ", ")))")
          }
          try segment.allowing(Estimate.keys)
          read.segments[name] = try Estimate.read(segment)
        }
      }
      if !field["defaults"].isMissing {
        for note in try field["defaults"].array() {
          try note.allowing(["field", "why"])
          read.defaults.append(Default(field: try note["field"].name(), why: try note["why"].string()))
        }
      }
      file.lineItems.append(read)
    }
    if !root["sources"].isMissing {
      for field in try root["sources"].array() {
        try field.allowing(["kind", "path", "summary"])
        file.sources.append(
          Source(
            kind: try field["kind"].string(), path: try field["path"].string(),
            summary: try field["summary"].string()))
      }
    }
    if !root["notes"].isMissing {
      file.notes = try root["notes"].array().map { field throws(CLIError) in try field.string() }
    }
    return file
  }

  /// The file's text: pretty-printed JSON, keys sorted, numbers rounded to what the data can tell.
  var json: String {
    var root: [String: Any] = [
      Self.versionKey: Self.version, "zone": zone,
      "lineItems": lineItems.map(\.json),
    ]
    if let segmentBy { root["segmentBy"] = segmentBy }
    if !segments.isEmpty {
      root["segments"] = segments.map { segment -> [String: Any] in
        var object: [String: Any] = ["name": segment.name, "share": JSONLine.rounded(segment.share, 6)]
        if let auctions = segment.auctions { object["auctions"] = auctions }
        return object
      }
    }
    if !sources.isEmpty {
      root["sources"] = sources.map { ["kind": $0.kind, "path": $0.path, "summary": $0.summary] }
    }
    if !notes.isEmpty { root["notes"] = notes }
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: root, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]),
      let text = String(data: data, encoding: .utf8)
    else { return "{}" }
    return text + "\n"
  }
}

extension MarketFile.LineItem {
  var json: [String: Any] {
    var object = estimate.json
    object["network"] = network.rawValue
    object["placementId"] = placementID
    if !segments.isEmpty { object["segments"] = segments.mapValues(\.json) }
    if !defaults.isEmpty { object["defaults"] = defaults.map { ["field": $0.field, "why": $0.why] } }
    return object
  }
}

extension MarketFile.Estimate {
  static let keys = ["fill", "noAnswer", "bidNoAnswer", "price", "loadLatency", "bidLatency"]

  /// Reads the estimate's keys of `field` (a line item or one of its segments).
  static func read(_ field: JSONField) throws(CLIError) -> MarketFile.Estimate {
    let fill = field["fill"]
    try fill.allowing(["probability", "fills", "answered", "ci95", "source"])
    let noAnswer = field["noAnswer"]
    let bidNoAnswer = field["bidNoAnswer"]
    for unanswered in [noAnswer, bidNoAnswer] where !unanswered.isMissing {
      try unanswered.allowing(["probability", "unanswered", "attempts", "ci95", "source"])
    }
    return MarketFile.Estimate(
      fill: try proportion(fill, successes: "fills", trials: "answered"),
      noAnswer: noAnswer.isMissing
        ? MarketFile.Proportion(value: 0, successes: nil, trials: nil, source: "market file")
        : try proportion(noAnswer, successes: "unanswered", trials: "attempts"),
      bidNoAnswer: bidNoAnswer.isMissing
        ? nil : try proportion(bidNoAnswer, successes: "unanswered", trials: "attempts"),
      price: try MarketFile.Price.read(field["price"]),
      loadLatency: try MarketFile.Latency.read(field["loadLatency"]),
      bidLatency: field["bidLatency"].isMissing ? nil : try MarketFile.Latency.read(field["bidLatency"]))
  }

  /// A proportion: its `probability`, and the counts behind it (`successes` of `trials`, as the
  /// file names them), which must agree: a resample draws from both.
  private static func proportion(_ field: JSONField, successes: String, trials: String) throws(CLIError)
    -> MarketFile.Proportion
  {
    let proportion = MarketFile.Proportion(
      value: try field["probability"].number(in: 0...1), successes: try field[successes].optionalCount(),
      trials: try field[trials].optionalCount(), source: try field["source"].optionalString() ?? "market file"
    )
    if let k = proportion.successes, let n = proportion.trials, k > n {
      throw field[successes].mismatch("must be at most \(trials) (\(n))")
    }
    return proportion
  }

  var json: [String: Any] {
    var fill: [String: Any] = [
      "probability": JSONLine.rounded(self.fill.value, 6), "source": self.fill.source,
    ]
    if let fills = self.fill.successes, let answered = self.fill.trials {
      fill["fills"] = fills
      fill["answered"] = answered
      if let interval = Wilson.interval(successes: fills, trials: answered) {
        fill["ci95"] = [JSONLine.rounded(interval.lowerBound, 6), JSONLine.rounded(interval.upperBound, 6)]
      }
    }
    func unanswered(_ proportion: MarketFile.Proportion) -> [String: Any] {
      var object: [String: Any] = [
        "probability": JSONLine.rounded(proportion.value, 6), "source": proportion.source,
      ]
      if let unanswered = proportion.successes, let attempts = proportion.trials {
        object["unanswered"] = unanswered
        object["attempts"] = attempts
      }
      return object
    }
    var object: [String: Any] = [
      "fill": fill, "noAnswer": unanswered(noAnswer), "price": price.json, "loadLatency": loadLatency.json,
    ]
    if let bidNoAnswer { object["bidNoAnswer"] = unanswered(bidNoAnswer) }
    if let bidLatency { object["bidLatency"] = bidLatency.json }
    return object
  }
}

extension MarketFile.Price {
  static func read(_ field: JSONField) throws(CLIError) -> MarketFile.Price {
    try field.allowing(["median", "mean", "sigma", "observations", "sigmaFromData", "ci95Mean", "source"])
    let sigma = try field["sigma"].number(in: 0...3)
    let median: Double
    if let value = try field["median"].optionalNumber(in: 0...MediationConfig.Limits.maxECPM) {
      median = value
    } else if let mean = try field["mean"].optionalNumber(in: 0...MediationConfig.Limits.maxECPM) {
      median = mean / exp(sigma * sigma / 2)
    } else {
      throw field["median"].mismatch(
        "must be given (or mean): the price distribution's median, USD per thousand")
    }
    let fromData = field["sigmaFromData"].value as? NSNumber
    return MarketFile.Price(
      median: median, sigma: sigma, observations: try field["observations"].optionalCount(),
      sigmaFromData: fromData.map(\.boolValue) ?? false,
      source: try field["source"].optionalString() ?? "market file")
  }

  var json: [String: Any] {
    var object: [String: Any] = [
      "median": JSONLine.rounded(median, 6), "mean": JSONLine.rounded(distribution.mean, 6),
      "sigma": JSONLine.rounded(sigma, 6), "sigmaFromData": sigmaFromData, "source": source,
    ]
    if let observations {
      object["observations"] = observations
      if let interval = MarketUncertainty.meanInterval(self) {
        object["ci95Mean"] = [
          JSONLine.rounded(interval.lowerBound, 6), JSONLine.rounded(interval.upperBound, 6),
        ]
      }
    }
    return object
  }
}

extension MarketFile.Latency {
  static func read(_ field: JSONField) throws(CLIError) -> MarketFile.Latency {
    try field.allowing(["medianMs", "sigma", "observations", "p99Ms", "source"])
    return MarketFile.Latency(
      medianMs: try field["medianMs"].number(in: 0...600_000), sigma: try field["sigma"].number(in: 0...5),
      observations: try field["observations"].optionalCount(),
      source: try field["source"].optionalString() ?? "market file")
  }

  var json: [String: Any] {
    var object: [String: Any] = [
      "medianMs": JSONLine.rounded(medianMs, 1), "sigma": JSONLine.rounded(sigma, 4),
      "p99Ms": JSONLine.rounded(distribution.quantile(0.99) * 1000, 0), "source": source,
    ]
    if let observations { object["observations"] = observations }
    return object
  }
}

extension JSONField {
  /// Refuses keys other than `keys` (a misspelt key would otherwise be ignored without a word).
  func allowing(_ keys: [String]) throws(CLIError) {
    for (key, field) in try objectFields() where !keys.contains(key) {
      throw field.mismatch("is not a key of this object (known: \(keys.joined(separator: ", ")))")
    }
  }
}
