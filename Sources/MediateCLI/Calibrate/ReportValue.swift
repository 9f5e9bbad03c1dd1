import Foundation

/// The cells of a vendor report, read strictly: every value is checked, and a bad one is named by
/// its file, row and column with what was found and what was expected.
struct ReportCellError: Error, Equatable {
  var file: String
  /// The 1-based line of a CSV file, or the index of a JSON row, as the message names it.
  var row: String
  var column: String
  var found: String
  var expected: String

  var message: String { "\(file): \(row), column \(column): found '\(found)', expected \(expected)" }
}

/// Numbers as the vendors' exports write them.
enum ReportNumber {
  /// A count: a whole number ≥ 0, with or without thousands separators (`12,345`); `nil` when
  /// `text` is not one.
  static func count(_ text: String) -> Int? {
    guard let value = decimal(text, allowCurrency: false), value >= 0, value == value.rounded(),
      value < 9e15
    else { return nil }
    return Int(exactly: value)
  }

  /// An amount in US dollars: a finite number ≥ 0, optionally with a `$` or `USD` before it
  /// (`$1,234.50`, `USD 12.5`) and thousands separators; `nil` otherwise.
  static func usd(_ text: String) -> Double? {
    guard let value = decimal(text, allowCurrency: true), value >= 0 else { return nil }
    return value
  }

  /// A rate: a fraction from 0 to 1 (`0.852`), or a percentage with its sign (`85.2%`); `nil`
  /// otherwise.
  static func rate(_ text: String) -> Double? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.hasSuffix("%") {
      guard let value = decimal(String(trimmed.dropLast()), allowCurrency: false), (0...100).contains(value)
      else { return nil }
      return value / 100
    }
    guard let value = decimal(trimmed, allowCurrency: false), (0...1).contains(value) else { return nil }
    return value
  }

  /// A plain decimal number: digits, an optional fraction, optional thousands separators in
  /// groups of three, an optional leading minus; with `allowCurrency`, an optional `$` or `USD`
  /// first. Exponents, `nan` and `inf` are refused.
  static func decimal(_ text: String, allowCurrency: Bool) -> Double? {
    var rest = Substring(text.trimmingCharacters(in: .whitespaces))
    var negative = false
    if rest.hasPrefix("-") {
      negative = true
      rest = rest.dropFirst()
    }
    if allowCurrency {
      if rest.hasPrefix("$") {
        rest = rest.dropFirst()
      } else if rest.uppercased().hasPrefix("USD") {
        rest = rest.dropFirst(3).drop(while: { $0 == " " })
      }
    }
    let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = parts.first, !whole.isEmpty else { return nil }
    let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
    guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
    if groups.count > 1 {
      guard groups[0].count <= 3, groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
    }
    var digits = groups.joined()
    if parts.count == 2 {
      guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
      digits += "." + parts[1]
    }
    guard let value = Double(digits), value.isFinite else { return nil }
    return negative ? -value : value
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// Calendar days as the reports write them: `2025-01-07` (MAX, the event log) or `20250107`
/// (AdMob's API rows), read into one form, `YYYY-MM-DD`.
enum ReportDay {
  /// `text` as `YYYY-MM-DD`, if it is a valid day in either form.
  static func normalized(_ text: String) -> String? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let digits = trimmed.filter { $0 != "-" }
    let dashed = trimmed.count == 10 && Array(trimmed)[4] == "-" && Array(trimmed)[7] == "-"
    guard digits.count == 8, dashed || trimmed.count == 8, digits.allSatisfy(\.isASCIIDigit),
      let year = Int(digits.prefix(4)), let month = Int(digits.dropFirst(4).prefix(2)),
      let day = Int(digits.suffix(2)), (1...12).contains(month), day >= 1,
      day <= days(inMonth: month, year: year)
    else { return nil }
    return String(format: "%04d-%02d-%02d", year, month, day)
  }

  static func days(inMonth month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// The day `offset` days after `start` (`YYYY-MM-DD`), by the proleptic Gregorian calendar.
  static func adding(_ offset: Int, to start: (year: Int, month: Int, day: Int)) -> String {
    let days = daysFromCivil(start) + offset
    let date = civil(fromDays: days)
    return String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
  }

  /// Days since 1970-01-01 (Howard Hinnant's algorithm).
  private static func daysFromCivil(_ date: (year: Int, month: Int, day: Int)) -> Int {
    let year = date.month <= 2 ? date.year - 1 : date.year
    let era = (year >= 0 ? year : year - 399) / 400
    let yearOfEra = year - era * 400
    let dayOfYear = (153 * (date.month + (date.month > 2 ? -3 : 9)) + 2) / 5 + date.day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
