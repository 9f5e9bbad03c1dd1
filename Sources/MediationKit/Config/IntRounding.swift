// Package, not public: an extension of a standard-library type would collide with an app's own.
extension Int {
  /// `value` rounded to the nearest whole number, for an SDK or a format that takes an integer; a
  /// value from outside no `Int` holds is never a trap: not a number is 0, anything beyond the
  /// bounds is the bound.
  package init(roundingClamped value: Double) {
    if value.isNaN {
      self = 0
    } else if let whole = Int(exactly: value.rounded()) {
      self = whole
    } else {
      self = value < 0 ? .min : .max
    }
  }
}
