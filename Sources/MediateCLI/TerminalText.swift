/// Text made safe to print: what a configuration, a server or a file put in a line (a zone id, a
/// version, an error message) can never drive the terminal.
enum TerminalText {
  /// `text` with every control character but the line feed written as `\uXXXX`: C0 controls (an
  /// escape sequence's ESC, BEL, carriage return, tab), DEL, C1 controls (U+0080–U+009F, CSI
  /// among them) and the bidirectional overrides and isolates (which reorder what a reader sees).
  ///
  /// The escape is JSON's own, so a JSON line stays valid and reads back the same.
  static func escape(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var escaped = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      guard needsEscape(scalar) else {
        escaped.append(scalar)
        continue
      }
      let hex = String(scalar.value, radix: 16, uppercase: true)
      escaped.append(
        contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
    }
    return String(escaped)
  }

  static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A: false
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}

extension CLIOutput {
  /// This output with every line escaped by ``TerminalText/escape(_:)``: every text printer
  /// writes through it.
  var escapingControlCharacters: CLIOutput {
    let out = self.out
    let err = self.err
    return CLIOutput(
      out: { out(TerminalText.escape($0)) }, err: { err(TerminalText.escape($0)) },
      stderrIsTerminal: stderrIsTerminal)
  }
}
