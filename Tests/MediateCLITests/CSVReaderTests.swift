import Foundation
import Testing

@testable import MediateCLI

/// The RFC 4180 reader the vendor reports go through: quotes, doubled quotes, line breaks inside
/// quotes, CRLF and LF, a byte order mark, and every malformed file named by line and field.
@Suite("CSV reader")
struct CSVReaderTests {
  @Test func plainRecordsWithCRLFAndLF() throws {
    let records = try CSVReader.records("a,b,c\r\n1,2,3\n4,,6")
    #expect(records.map(\.fields) == [["a", "b", "c"], ["1", "2", "3"], ["4", "", "6"]])
    #expect(records.map(\.line) == [1, 2, 3])
  }

  @Test func quotedFieldsKeepCommasQuotesAndLineBreaks() throws {
    let text = "name,note\r\n\"Smith, J\",\"said \"\"hi\"\"\"\r\n\"two\r\nlines\",x\r\n\"\",\"\"\r\n"
    let records = try CSVReader.records(text)
    #expect(
      records.map(\.fields) == [
        ["name", "note"], ["Smith, J", "said \"hi\""], ["two\r\nlines", "x"], ["", ""],
      ])
    // The record after a quoted line break starts on the right line.
    #expect(records.map(\.line) == [1, 2, 3, 5])
  }

  @Test func aByteOrderMarkIsSkippedAndAFinalBreakMakesNoRecord() throws {
    let records = try CSVReader.records("\u{FEFF}day,x\r\n2025-01-01,1\r\n")
    #expect(records.map(\.fields) == [["day", "x"], ["2025-01-01", "1"]])
    let table = try CSVTable("\u{FEFF}Day , X\n2025-01-01,1")
    #expect(table.columns == ["day", "x"])
    #expect(table.column("x") == 1)
  }

  @Test func anEmptyLastFieldAndATrailingCommaAreFields() throws {
    #expect(try CSVReader.records("a,\n,b").map(\.fields) == [["a", ""], ["", "b"]])
  }

  @Test(arguments: [
    ("a,b\n1,x\"y\n", 2, 2, "a quote inside an unquoted field"),
    ("a,b\n\"1\"x,2\n", 2, 1, "text after the field's closing quote"),
    ("a,b\n\"1\"\"\n", 2, 1, "the file ends inside a quoted field"),
    ("a\n\"x\" \"y\"\n", 2, 1, "text after the field's closing quote"),
  ])
  func malformedFilesNameTheLineAndTheField(text: String, line: Int, field: Int, message: String) {
    #expect {
      try CSVReader.records(text)
    } throws: { error in
      guard let malformed = error as? CSVReader.Malformed else { return false }
      return malformed.line == line && malformed.field == field && malformed.message.hasPrefix(message)
    }
  }

  @Test func aTableRefusesAnEmptyFileARaggedRowAndARepeatedColumn() {
    #expect(
      throws: CSVReader.Malformed(line: 1, field: 1, message: "the file is empty; expected a header row")
    ) {
      try CSVTable("")
    }
    #expect(
      throws: CSVReader.Malformed(line: 3, field: 3, message: "3 fields; expected 2, one per header column")
    ) { try CSVTable("a,b\n1,2\n1,2,3\n") }
    #expect(throws: CSVReader.Malformed(line: 1, field: 3, message: "column 'a' appears twice in the header"))
    {
      try CSVTable("a,b,A\n")
    }
  }

  @Test func thousandsOfRowsReadInOrder() throws {
    let text = "n,v\r\n" + (0..<5_000).map { "\($0),\"\($0),\($0)\"" }.joined(separator: "\r\n")
    let table = try CSVTable(text)
    #expect(table.rows.count == 5_000)
    #expect(table.rows[4_999].fields == ["4999", "4999,4999"])
    #expect(table.rows[4_999].line == 5_001)
  }
}

/// Report cells: counts and amounts with thousands separators and a currency, rates as fractions
/// or percentages, days in both vendors' forms; anything else refused.
@Suite("Report values")
struct ReportValueTests {
  @Test func countsAmountsAndRates() {
    #expect(ReportNumber.count("12,345") == 12_345)
    #expect(ReportNumber.count(" 7 ") == 7)
    #expect(ReportNumber.count("1.5") == nil)
    #expect(ReportNumber.count("-3") == nil)
    #expect(ReportNumber.count("1,23") == nil)
    #expect(ReportNumber.count("12,3456") == nil)
    #expect(ReportNumber.count("1e3") == nil)
    #expect(ReportNumber.usd("$1,234.50") == 1234.5)
    #expect(ReportNumber.usd("USD 12.5") == 12.5)
    #expect(ReportNumber.usd("0.000123") == 0.000123)
    #expect(ReportNumber.usd("€12") == nil)
    #expect(ReportNumber.usd("nan") == nil)
    #expect(ReportNumber.usd("-1") == nil)
    #expect(ReportNumber.rate("0.85") == 0.85)
    #expect(ReportNumber.rate("85%") == 0.85)
    #expect(ReportNumber.rate("85") == nil)
    #expect(ReportNumber.rate("120%") == nil)
  }

  @Test func days() {
    #expect(ReportDay.normalized("2025-01-07") == "2025-01-07")
    #expect(ReportDay.normalized("20250107") == "2025-01-07")
    #expect(ReportDay.normalized("2024-02-29") == "2024-02-29")
    #expect(ReportDay.normalized("2025-02-29") == nil)
    #expect(ReportDay.normalized("2025-13-01") == nil)
    #expect(ReportDay.normalized("2025/01/07") == nil)
    #expect(ReportDay.normalized("250107") == nil)
    #expect(ReportDay.adding(0, to: (2025, 1, 1)) == "2025-01-01")
    #expect(ReportDay.adding(59, to: (2024, 1, 1)) == "2024-02-29")
    #expect(ReportDay.adding(365, to: (2025, 1, 1)) == "2026-01-01")
  }
}
