/// Shrinking for property tests: turns a long failing input into a short one that still fails.
///
/// ```swift
/// if let failure = check(steps) {
///   let minimal = Shrink.sequence(steps) { check($0) != nil }
///   Issue.record("seed \(seed): \(failure); shortest failing sequence: \(minimal)")
/// }
/// ```
public enum Shrink {
  /// The shortest failing subsequence found of `input`: elements keep their order.
  ///
  /// Removes halves, then quarters, … then single elements while `fails` still holds, and tries
  /// each remaining element's `simpler` candidates. The result is 1-minimal: removing any one
  /// element (or replacing it by one of its candidates) makes `fails` false, unless the
  /// `maxAttempts` budget ran out first.
  ///
  /// - Parameters:
  ///   - input: A sequence for which `fails` is true (returned as is otherwise).
  ///   - maxAttempts: The most calls of `fails` to make.
  ///   - simpler: Simpler replacements for one element, simplest first (none by default).
  ///   - fails: Whether a candidate still fails. Must be deterministic.
  /// - Returns: The shortest failing sequence found.
  public static func sequence<Element>(
    _ input: [Element], maxAttempts: Int = 10_000, simpler: (Element) -> [Element] = { _ in [] },
    while fails: ([Element]) throws -> Bool
  ) rethrows -> [Element] {
    var attempts = 0
    func stillFails(_ candidate: [Element]) throws -> Bool {
      attempts += 1
      return try fails(candidate)
    }
    guard try stillFails(input) else { return input }
    var current = input
    var changed = true
    while changed && attempts < maxAttempts {
      changed = false
      var chunk = max(current.count / 2, 1)
      while !current.isEmpty && attempts < maxAttempts {
        var removed = false
        var start = 0
        while start < current.count && attempts < maxAttempts {
          var candidate = current
          candidate.removeSubrange(start..<min(start + chunk, current.count))
          if try stillFails(candidate) {
            current = candidate
            removed = true
          } else {
            start += chunk
          }
        }
        if removed {
          chunk = min(chunk, max(current.count / 2, 1))
        } else if chunk > 1 {
          chunk /= 2
        } else {
          break
        }
      }
      for index in current.indices where attempts < maxAttempts {
        for replacement in simpler(current[index]) where attempts < maxAttempts {
          var candidate = current
          candidate[index] = replacement
          if try stillFails(candidate) {
            current = candidate
            changed = true
            break
          }
        }
      }
    }
    return current
  }
}
