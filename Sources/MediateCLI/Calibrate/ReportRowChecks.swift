import Foundation
import MediationKit

/// The checks on a set of report rows before they are counted: one app, each day once.
enum ReportRowChecks {
  /// The rows of one app per report kind: a kind whose rows cover several apps keeps those of the
  /// one `apps` names (`--app`, which may name one app per kind, as MAX and AdMob identify apps
  /// differently), and is refused with the apps it covers when `apps` names none of them; rows
  /// without an app column are kept. An `--app` that no report has is refused as a likely typo.
  static func selectingApp(_ rows: [ReportRow], apps wanted: [String]) throws(CLIError)
    -> (rows: [ReportRow], skipped: Int)
  {
    var kept: [ReportRow] = []
    var seen: Set<String> = []
    for kind in ReportRow.Kind.allCases {
      let ofKind = rows.filter { $0.kind == kind }
      let apps = Set(ofKind.compactMap(\.app).filter { !$0.isEmpty })
      seen.formUnion(apps)
      guard apps.count > 1 else {
        kept += ofKind
        continue
      }
      let chosen = apps.intersection(wanted)
      guard chosen.count == 1, let app = chosen.first else {
        let files = Set(ofKind.map(\.file)).sorted().joined(separator: ", ")
        throw .data(
          "\(files): the \(kind.rawValue)s cover \(apps.count) apps (\(apps.sorted().joined(separator: ", "))); a "
            + "market is one app's: pass --app ID (one of them) to read its rows")
      }
      kept += ofKind.filter { ($0.app ?? "").isEmpty || $0.app == app }
    }
    for app in wanted where !seen.contains(app) {
      throw .data(
        "--app \(app): no report row is for this app; the reports cover "
          + (seen.isEmpty ? "no app column" : seen.sorted().joined(separator: ", ")))
    }
    return (kept, rows.count - kept.count)
  }

  /// `rows` with every row given twice — the same report kind, day and dimension values, as when
  /// two reports cover the same days — counted once. Two such rows with different counts, or two
  /// files of one kind covering one day with different columns (whose rows cannot be paired), are
  /// refused, naming both.
  static func deduplicated(_ rows: [ReportRow]) throws(CLIError) -> (rows: [ReportRow], duplicates: Int) {
    var seen: [String: ReportRow] = [:]
    var kept: [ReportRow] = []
    var duplicates = 0
    var coverage: [String: (file: String, columns: [String])] = [:]
    for row in rows {
      let columns = row.identity.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 }
      if let day = row.day {
        let key = "\(row.kind.rawValue) \(day)"
        if let other = coverage[key], other.file != row.file, other.columns != columns {
          throw .data(
            "\(other.file) and \(row.file) both have \(day) in a \(row.kind.rawValue), with different columns "
              + "(\(other.columns.joined(separator: ", ")) and \(columns.joined(separator: ", "))): their rows "
              + "cannot be paired to count the day once; export both with the same columns")
        }
        coverage[key] = coverage[key] ?? (row.file, columns)
      }
      let key = row.kind.rawValue + "\u{1F}" + row.identity.joined(separator: "\u{1F}")
      if let first = seen[key] {
        guard first.metrics == row.metrics else {
          throw .data(
            "\(first.file) \(first.place) and \(row.file) \(row.place) are the same row (the same day and keys) "
              + "with different counts; keep the report you trust and drop the other")
        }
        duplicates += 1
        continue
      }
      seen[key] = row
      kept.append(row)
    }
    return (kept, duplicates)
  }
}
