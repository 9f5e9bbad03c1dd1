/// The order a waterfall tries a zone's line items in.
///
/// Tiers by ascending `priority`; within a tier, by descending `ecpm`; remaining ties keep the
/// order the configuration lists them in (the sort is stable).
public enum WaterfallOrder {
  /// The line items in the order they are tried.
  public static func sorted(_ lineItems: [LineItem]) -> [LineItem] {
    lineItems.enumerated()
      .sorted { lhs, rhs in
        if lhs.element.priority != rhs.element.priority { return lhs.element.priority < rhs.element.priority }
        if lhs.element.ecpm != rhs.element.ecpm { return lhs.element.ecpm > rhs.element.ecpm }
        return lhs.offset < rhs.offset
      }
      .map(\.element)
  }
}
