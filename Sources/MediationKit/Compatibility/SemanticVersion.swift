/// A version number `MAJOR.MINOR.PATCH`, with an optional pre-release or build label
/// (`13.3.1-sim`, `2.0.0+build.7`).
///
/// Compatibility rules compare the numbers only: the label is kept for display, so an SDK that
/// reports `13.3.1-sim` is inside a `13.0.0..<14.0.0` range.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible,
  LosslessStringConvertible
{
  /// Incompatible API changes.
  public var major: Int
  /// Additions that keep compatibility.
  public var minor: Int
  /// Fixes that keep compatibility.
  public var patch: Int
  /// What follows the numbers, including its `-` or `+` (empty when there is none).
  public var label: String

  /// Creates `major.minor.patch`, with an optional `label` such as `"-sim"`.
  public init(_ major: Int, _ minor: Int, _ patch: Int = 0, label: String = "") {
    self.major = major
    self.minor = minor
    self.patch = patch
    self.label = label
  }

  /// Reads `MAJOR.MINOR.PATCH`, `MAJOR.MINOR` or `MAJOR`, each a non-negative whole number,
  /// optionally followed by a `-` or `+` label; `nil` for anything else.
  public init?(_ text: String) {
    let end = text.firstIndex { $0 == "-" || $0 == "+" } ?? text.endIndex
    let parts = text[..<end].split(separator: ".", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var numbers: [Int] = []
    for part in parts {
      guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let number = Int(part)
      else { return nil }
      numbers.append(number)
    }
    let label = String(text[end...])
    if label.count == 1 { return nil }  // a bare "-" or "+"
    self.init(
      numbers[0], numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0, label: label)
  }

  public var description: String { "\(major).\(minor).\(patch)\(label)" }

  /// The numbers without the label.
  public var numbers: SemanticVersion { SemanticVersion(major, minor, patch) }

  /// Orders by the numbers; the label only breaks ties (so the order agrees with `==`).
  public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
    (lhs.major, lhs.minor, lhs.patch, lhs.label) < (rhs.major, rhs.minor, rhs.patch, rhs.label)
  }
}
