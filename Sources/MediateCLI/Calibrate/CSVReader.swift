import Foundation

/// A reader of comma-separated values as RFC 4180 defines them, for the vendors' report exports.
///
/// - Fields are separated by commas and records by CRLF; a lone LF (or CR) also ends a record,
///   as files edited on other systems have them.
/// - A field may be enclosed in double quotes; inside, a doubled quote (`""`) is one quote, and
///   commas and line breaks are part of the field.
/// - A UTF-8 byte order mark at the start is skipped (spreadsheet exports begin with one).
/// - A final line break does not make an empty record; an empty line inside the file is a record
///   of one empty field, which ``CSVTable`` reports as a row with too few fields.
///
/// What it refuses, with the line and the field: a quote inside an unquoted field, text after a
/// closing quote other than a separator, and a quoted field the file ends inside.
struct CSVReader {
  /// One record: its fields, and the line of the file it starts on (1-based).
  struct Record: Equatable {
    var fields: [String]
    var line: Int
  }

  /// Why a file is not valid CSV.
  struct Malformed: Error, Equatable {
    /// The 1-based line and field where it went wrong.
    var line: Int
    var field: Int
    var message: String
  }

  /// Every record of `text`, in order.
  static func records(_ text: String) throws(Malformed) -> [Record] {
    var scalars = Array(text.unicodeScalars)[...]
    if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
    var records: [Record] = []
    var fields: [String] = []
    var field = String.UnicodeScalarView()
    var line = 1
    var recordLine = 1
    var quoted = false
    var inQuotes = false
    var afterClosingQuote = false
    var index = scalars.startIndex

    func endField() {
      fields.append(String(field))
      field = String.UnicodeScalarView()
      quoted = false
      afterClosingQuote = false
    }
    func endRecord() {
      endField()
      records.append(Record(fields: fields, line: recordLine))
      fields = []
    }

    while index < scalars.endIndex {
      let scalar = scalars[index]
      index = scalars.index(after: index)
      if inQuotes {
        if scalar == "\"" {
          if index < scalars.endIndex && scalars[index] == "\"" {
            field.append("\"")
            index = scalars.index(after: index)
          } else {
            inQuotes = false
            afterClosingQuote = true
          }
        } else {
          if scalar == "\n" || (scalar == "\r" && scalars[safe: index] != "\n") { line += 1 }
          field.append(scalar)
        }
        continue
      }
      switch scalar {
      case ",":
        endField()
      case "\r", "\n":
        if scalar == "\r" && index < scalars.endIndex && scalars[index] == "\n" {
          index = scalars.index(after: index)
        }
        endRecord()
        line += 1
        recordLine = line
      case "\"":
        guard field.isEmpty && !quoted else {
          throw Malformed(
            line: line, field: fields.count + 1,
            message: afterClosingQuote
              ? "a quote after the field's closing quote (a quote inside a quoted field is written twice: \"\")"
              : "a quote inside an unquoted field (quote the whole field and write the quote twice)")
        }
        quoted = true
        inQuotes = true
      default:
        if afterClosingQuote {
          throw Malformed(
            line: line, field: fields.count + 1,
            message: "text after the field's closing quote; expected a comma or the end of the line")
        }
        field.append(scalar)
      }
    }
    if inQuotes {
      throw Malformed(
        line: recordLine, field: fields.count + 1,
        message: "the file ends inside a quoted field (a closing quote is missing)")
    }
    if !field.isEmpty || quoted || !fields.isEmpty { endRecord() }
    return records
  }
}

/// A CSV file read as a header and rows, each row's fields by column name.
struct CSVTable {
  /// The header's column names, trimmed and lowercased, in order.
  let columns: [String]
  /// The data rows (every record after the header).
  let rows: [CSVReader.Record]

  /// Reads `text`: its first record is the header. Column names are matched without case and
  /// surrounding spaces; a name given twice, an empty file and a row with another number of
  /// fields than the header are errors.
  init(_ text: String) throws(CSVReader.Malformed) {
    let records = try CSVReader.records(text)
    guard let header = records.first else {
      throw CSVReader.Malformed(line: 1, field: 1, message: "the file is empty; expected a header row")
    }
    let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    var seen: Set<String> = []
    for (index, name) in names.enumerated() {
      guard !seen.contains(name) else {
        throw CSVReader.Malformed(
          line: header.line, field: index + 1, message: "column '\(name)' appears twice in the header")
      }
      seen.insert(name)
    }
    for record in records.dropFirst() where record.fields.count != names.count {
      throw CSVReader.Malformed(
        line: record.line, field: min(record.fields.count, names.count) + 1,
        message: "\(record.fields.count) fields; expected \(names.count), one per header column")
    }
    columns = names
    rows = Array(records.dropFirst())
  }

  /// The index of column `name` (lowercase), if the header has it.
  func column(_ name: String) -> Int? { columns.firstIndex(of: name) }
}

extension ArraySlice {
  /// The element at `index`, or `nil` past the end.
  fileprivate subscript(safe index: Index) -> Element? { indices.contains(index) ? self[index] : nil }
}
