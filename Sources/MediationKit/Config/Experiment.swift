extension ZoneConfig {
  /// An A/B test on a zone: users are split between its arms in proportion to their weights, each
  /// user always landing in the same arm (the same user, the same arm, on every device and launch).
  ///
  /// ```json
  /// "experiments": [ { "id": "bidding-test", "arms": [
  ///     { "id": "control", "weight": 50 },
  ///     { "id": "hybrid", "weight": 50, "strategy": "hybrid", "auctionTimeoutSeconds": 2 } ],
  ///   "overrides": { "qa-device-7": "hybrid" } } ]
  /// ```
  /// A zone may run several experiments at once; each user is assigned in each independently, so
  /// two experiments may not override the same setting.
  public struct Experiment: Codable, Sendable, Equatable {
    /// The experiment's id, unique in its zone; it also salts the assignment, so two experiments
    /// split users independently.
    public var id: String
    /// The arms, 2 to ``MediationConfig/Limits/maxArmsPerExperiment``.
    public var arms: [Arm]
    /// Users put in a given arm whatever the split (user id → arm id), for QA devices.
    public var overrides: [String: String]

    public init(id: String, arms: [Arm], overrides: [String: String] = [:]) {
      self.id = id
      self.arms = arms
      self.overrides = overrides
    }

    private enum CodingKeys: String, CodingKey {
      case id, arms, overrides
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      id = try container.decode(String.self, forKey: .id)
      arms = try container.decode([Arm].self, forKey: .arms)
      overrides = try container.decodeIfPresent([String: String].self, forKey: .overrides) ?? [:]
    }

    /// One arm of an experiment: its share of users and what it changes in the zone. A setting
    /// left out (`nil`) is the zone's own, so an arm that changes nothing is the control.
    public struct Arm: Codable, Sendable, Equatable {
      /// The arm's id, unique in its experiment; events and the ledger report it.
      public var id: String
      /// The arm's share of users relative to the other arms' weights: a whole number from 1 to
      /// ``MediationConfig/Limits/maxArmWeight`` (50/50, or 1/1/2).
      public var weight: Int
      /// The line items this arm uses instead of the zone's.
      public var lineItems: [ZoneConfig.LineItem]?
      /// The strategy this arm uses instead of the zone's.
      public var strategy: ZoneConfig.AuctionStrategy?
      /// The auction timeout this arm uses instead of the zone's.
      public var auctionTimeoutSeconds: Double?

      public init(
        id: String, weight: Int, lineItems: [ZoneConfig.LineItem]? = nil,
        strategy: ZoneConfig.AuctionStrategy? = nil,
        auctionTimeoutSeconds: Double? = nil
      ) {
        self.id = id
        self.weight = weight
        self.lineItems = lineItems
        self.strategy = strategy
        self.auctionTimeoutSeconds = auctionTimeoutSeconds
      }

      private enum CodingKeys: String, CodingKey {
        case id, weight, strategy, auctionTimeoutSeconds, lineItems
      }

      public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        guard let weight = try container.decodeWholeNumberIfPresent(forKey: .weight) else {
          throw DecodingError.keyNotFound(
            CodingKeys.weight, .init(codingPath: container.codingPath, debugDescription: "weight"))
        }
        self.weight = weight
        lineItems = try container.decodeIfPresent([ZoneConfig.LineItem].self, forKey: .lineItems)
        strategy = try ZoneConfig.AuctionStrategy.decodeIfPresent(from: container, forKey: .strategy)
        auctionTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .auctionTimeoutSeconds)
      }
    }
  }
}
