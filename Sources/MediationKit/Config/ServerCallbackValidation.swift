import Foundation

extension ZoneConfig.ServerCallbackConfig {
  /// The networks whose callbacks need ``eventKey`` (MAX keys `{EVENT_TOKEN}` with it).
  static let networksRequiringEventKey: [NetworkID: String] = [
    "max": "the account's S2S event key, which keys {EVENT_TOKEN} and {EVENT_TOKEN_ALL}"
  ]

  /// The problems of a line item's callback at `path`: the URL must be an absolute `http` or
  /// `https` URL (MAX macros such as `{USER_ID}` allowed), and MAX needs an event key. Other
  /// networks may carry an event key (for their own keyed callbacks) or leave it out.
  func validate(path: String, network: NetworkID) -> [MediationConfig.Issue] {
    var issues: [MediationConfig.Issue] = []
    if let problem = Self.urlProblem(url) {
      issues.append(MediationConfig.Issue(path: "\(path).url", message: problem))
    }
    if let eventKey {
      if eventKey.trimmingCharacters(in: .whitespaces).isEmpty {
        issues.append(
          MediationConfig.Issue(
            path: "\(path).eventKey", message: "must be a non-empty string, found \"\(eventKey)\""))
      }
    } else if let purpose = Self.networksRequiringEventKey[network] {
      issues.append(
        MediationConfig.Issue(
          path: "\(path).eventKey", message: "required for network '\(network)' (\(purpose)), found none"))
    }
    return issues
  }

  /// What is wrong with a callback URL, or `nil` when it is an absolute `http`/`https` URL with a
  /// host. `{NAME}` macros (upper-case letters, digits, `_`) count as ordinary characters.
  static func urlProblem(_ url: String) -> String? {
    let expected = "must be an absolute http or https URL"
    if url.count > MediationConfig.Limits.maxServerCallbackURLLength {
      return "\(expected) of at most \(MediationConfig.Limits.maxServerCallbackURLLength) characters, found "
        + "\(url.count) characters"
    }
    let found = "found \"\(url.count > 200 ? url.prefix(200) + "…" : Substring(url))\""
    guard
      !url.unicodeScalars.contains(where: {
        $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F
      })
    else {
      return "\(expected) without spaces or control characters, \(found)"
    }
    guard let plain = withoutMacros(url) else {
      return "\(expected) with '{' and '}' only around a macro name such as {USER_ID}, \(found)"
    }
    guard plain.unicodeScalars.allSatisfy({ allowedURLCharacters.contains($0) }) else {
      return "\(expected) (percent-encode other characters), \(found)"
    }
    guard let components = URLComponents(string: plain),
      let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = components.host, !host.isEmpty
    else {
      return "\(expected), \(found)"
    }
    if components.fragment != nil {
      return "\(expected) without a fragment (#…), \(found)"
    }
    return nil
  }

  /// The characters a URL may hold as they are (RFC 3986's unreserved and reserved ones, and `%`).
  private static let allowedURLCharacters = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")

  /// `url` with every `{NAME}` macro (upper-case letters, digits, `_`) replaced by `x`, so it can
  /// be parsed as a URL; `nil` when a brace is not part of such a macro.
  private static func withoutMacros(_ url: String) -> String? {
    var result = ""
    var rest = Substring(url)
    while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
      guard rest[open] == "{" else { return nil }
      result += rest[..<open]
      let afterOpen = rest.index(after: open)
      guard let close = rest[afterOpen...].firstIndex(of: "}") else { return nil }
      let name = rest[afterOpen..<close]
      guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") })
      else { return nil }
      result += "x"
      rest = rest[rest.index(after: close)...]
    }
    return result + rest
  }
}
