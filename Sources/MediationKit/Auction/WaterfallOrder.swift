/// The order a waterfall tries a zone's line items in.
///
/// Tiers by ascending `priority`; within a tier, by descending `ecpm`; remaining ties keep the
/// order the configuration lists them in (the sort is stable).
package enum WaterfallOrder {
  /// The line items in the order they are tried.
  package static func sorted(_ lineItems: [ZoneConfig.LineItem]) -> [ZoneConfig.LineItem] {
    sortedIndices(lineItems).map { lineItems[$0] }
  }

  /// The indices of `lineItems` in the order they are tried.
  package static func sortedIndices(_ lineItems: [ZoneConfig.LineItem]) -> [Int] {
    lineItems.indices.sorted { lhs, rhs in
      let left = lineItems[lhs]
      let right = lineItems[rhs]
      if left.priority != right.priority { return left.priority < right.priority }
      if left.ecpm != right.ecpm { return left.ecpm > right.ecpm }
      return lhs < rhs
    }
  }
}
