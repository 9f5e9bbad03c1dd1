import Foundation

extension ZoneConfig {
  /// An issue when an experiment's or an arm's `id` is blank, longer than
  /// ``MediationConfig/Limits/maxExperimentIDLength``, holds a control character, or was seen
  /// before in `list` (`seen` maps ids to their index). The id is reported (and remembered) only
  /// when it is otherwise valid, so a repeated bad id is one issue per arm, at that arm's `id`.
  static func idIssue(
    _ path: String, _ id: String, seen: inout [String: Int], index: Int, list: String
  ) -> MediationConfig.Issue? {
    let limit = MediationConfig.Limits.maxExperimentIDLength
    if id.utf8.count > limit, id.count > limit {
      return MediationConfig.Issue(
        path: path, message: "must be a string of at most \(limit) characters, found \(id.count) characters")
    }
    if let (offset, scalar) = id.unicodeScalars.enumerated().first(where: { Self.isControl($0.element) }) {
      return MediationConfig.Issue(
        path: path,
        message:
          "must not contain control characters, found \(Self.codePoint(scalar)) at character \(offset + 1) of "
          + Self.quoted(id))
    }
    if id.trimmingCharacters(in: .whitespaces).isEmpty {
      return MediationConfig.Issue(path: path, message: "must be a non-empty string, found \"\(id)\"")
    }
    if let first = seen[id] {
      return MediationConfig.Issue(
        path: path, message: "duplicate id \(Self.quoted(id)), first used by \(list)[\(first)]")
    }
    seen[id] = index
    return nil
  }

  /// Whether `scalar` may not appear in an id: a C0 or C1 control, DEL, or a bidirectional
  /// override or isolate (which make one id read as another).
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  /// `U+001B`.
  static func codePoint(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }

  /// A string from a configuration as a message quotes it: in single quotes, control characters
  /// written as `\u{1B}`, and cut after 40 characters (with the full length), so a message stays
  /// short and safe to print whatever the configuration holds.
  static func quoted(_ text: String) -> String {
    let shown = text.count > 40 ? String(text.prefix(40)) : text
    var escaped = ""
    for scalar in shown.unicodeScalars {
      if isControl(scalar) {
        escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        escaped.unicodeScalars.append(scalar)
      }
    }
    return "'\(escaped)'" + (text.count > 40 ? "… (\(text.count) characters)" : "")
  }
}

extension MediationConfig {
  /// How an issue's path names the member `name` of an object: `.name` for a name made of
  /// letters, digits and `_` that does not start with a digit (every field of the format), else
  /// `["name"]` with the name written as a JSON string (a user id in `overrides`, say
  /// `overrides["qa-1"]`), so every path names exactly one place in the document.
  static func pathComponent(member name: String) -> String {
    let isPlain =
      name.utf8.first.map { !$0.isDigit } ?? false
      && name.utf8.allSatisfy { $0.isDigit || $0 == UInt8(ascii: "_") || ($0 | 0x20).isLowercaseLetter }
    if isPlain { return "." + name }
    var escaped = ""
    for scalar in name.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      default:
        if ZoneConfig.isControl(scalar) {
          let hex = String(scalar.value, radix: 16, uppercase: false)
          escaped += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        } else {
          escaped.unicodeScalars.append(scalar)
        }
      }
    }
    return "[\"\(escaped)\"]"
  }
}

extension UInt8 {
  fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
  fileprivate var isLowercaseLetter: Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) }
}
