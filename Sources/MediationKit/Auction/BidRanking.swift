/// How bids are ranked in `bidding` and `hybrid` auctions.
///
/// Highest price first; equal prices go to the line item with the lower `priority` number, then
/// to the one listed first in the configuration. Bids below their line item's `bidFloor` are out.
package enum BidRanking {
  /// One bid, with where its line item stands in the zone's configuration.
  package struct Entry: Sendable, Equatable {
    public var item: LineItem
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
        if lhs.price != rhs.price { return lhs.price > rhs.price }
        if lhs.item.priority != rhs.item.priority { return lhs.item.priority < rhs.item.priority }
        return lhs.configIndex < rhs.configIndex
      }
  }
}
