/// How bids are ranked in `bidding` and `hybrid` auctions.
///
/// Highest price first; equal prices go to the line item with the lower `priority` number, then
/// to the one listed first in the configuration. Bids below their line item's `bidFloor` are out.
package enum BidRanking {
  /// One bid, with where its line item stands in the zone's configuration.
  package struct Entry: Sendable, Equatable {
    public var item: ZoneConfig.LineItem
    public var configIndex: Int
    public var price: Double

    public init(item: ZoneConfig.LineItem, configIndex: Int, price: Double) {
      self.item = item
      self.configIndex = configIndex
      self.price = price
    }
  }

  /// The bids at or above their floors, best first.
  package static func ranked(_ bids: [Entry]) -> [Entry] {
    bids.filter { $0.price >= $0.item.bidFloor }
      .sorted { lhs, rhs in
        ranksBefore(
          (lhs.price, lhs.item.priority, lhs.configIndex), (rhs.price, rhs.item.priority, rhs.configIndex))
      }
  }

  /// Whether a bid of `lhs` (its price, its line item's priority and configuration index) ranks
  /// before one of `rhs`: the order of ``ranked(_:)``.
  static func ranksBefore(
    _ lhs: (price: Double, priority: Int, configIndex: Int),
    _ rhs: (price: Double, priority: Int, configIndex: Int)
  ) -> Bool {
    if lhs.price != rhs.price { return lhs.price > rhs.price }
    if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
    return lhs.configIndex < rhs.configIndex
  }
}
