import Foundation

extension MediationConfig {
  /// A configuration that could not be used: where it came from and every problem found.
  public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or other source) the configuration came from.
    public var source: String
    /// The problems, each with its path inside the document.
    public var issues: [Issue]

    public init(source: String, issues: [Issue]) {
      self.source = source
      self.issues = issues
    }

    /// One line per issue: `FILE: zones[1].lineItems[0].ecpm: must be …, found -3`.
    public var description: String {
      issues.map { "\(source): \($0)" }.joined(separator: "\n")
    }
  }
}

/// Reading and validating ``MediationConfig`` JSON: every decoding failure becomes a
/// ``MediationConfig/Issue`` with its path.
extension MediationConfig {
  /// Decodes and validates a configuration.
  ///
  /// - Parameters:
  ///   - data: The JSON document.
  ///   - source: Where it came from, for messages (a file path, "built-in default").
  ///   - knownNetworks: The network ids line items may use; `nil` skips that check.
  /// - Returns: The valid configuration.
  /// - Throws: ``MediationConfig/LoadError`` listing every problem.
  public static func load(
    _ data: Data, source: String, knownNetworks: [NetworkID]? = nil
  ) throws(LoadError) -> MediationConfig {
    let scanned = ConfigJSONScan.issues(in: Array(data))
    if !scanned.isEmpty { throw LoadError(source: source, issues: scanned) }
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    let config: MediationConfig
    do {
      config = try decoder.decode(MediationConfig.self, from: data)
    } catch let error as DecodingError {
      throw LoadError(source: source, issues: [issue(for: error)])
    } catch {
      throw LoadError(source: source, issues: [Issue(path: "", message: "could not read: \(error)")])
    }
    let issues = config.validate(knownNetworks: knownNetworks)
    if !issues.isEmpty { throw LoadError(source: source, issues: issues) }
    return config
  }

  /// Reads a configuration file.
  /// - Throws: ``MediationConfig/LoadError`` when the file cannot be read or is invalid.
  public static func load(
    contentsOf url: URL, knownNetworks: [NetworkID]? = nil
  ) throws(LoadError) -> MediationConfig {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file"
      throw LoadError(source: url.path, issues: [Issue(path: "", message: reason)])
    }
    return try load(data, source: url.path, knownNetworks: knownNetworks)
  }

  static func path(_ codingPath: [any CodingKey]) -> String {
    var path = ""
    for key in codingPath {
      if let index = key.intValue {
        path += "[\(index)]"
      } else {
        path = joined(path, member: key.stringValue)
      }
    }
    return path
  }

  /// `path` followed by its member `name`, as ``pathComponent(member:)`` writes it (no leading
  /// `.` at the root).
  static func joined(_ path: String, member name: String) -> String {
    let component = pathComponent(member: name)
    return path.isEmpty && component.hasPrefix(".") ? String(component.dropFirst()) : path + component
  }

  static func issue(for error: DecodingError) -> Issue {
    switch error {
    case .typeMismatch(let type, let context):
      return Issue(
        path: path(context.codingPath), message: "expected \(describe(type)), found \(found(context))")
    case .valueNotFound(let type, let context):
      return Issue(path: path(context.codingPath), message: "expected \(describe(type)), found null")
    case .keyNotFound(let key, let context):
      return Issue(
        path: path(context.codingPath), message: "missing required field '\(key.stringValue)'")
    case .dataCorrupted(let context):
      if context.codingPath.isEmpty {
        let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return Issue(path: "", message: "not valid JSON" + (detail.map { " (\($0))" } ?? ""))
      }
      return Issue(path: path(context.codingPath), message: context.debugDescription)
    @unknown default:
      return Issue(path: "", message: "\(error)")
    }
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Float.Type: "a number"
    case is Int.Type: "an integer"
    case is String.Type, is NetworkID.Type: "a string"
    case is Bool.Type: "true or false"
    case is [String: Any].Type: "an object"
    case is [Any].Type: "an array"
    default: type is any Collection.Type ? "an array" : "an object"
    }
  }

  private static func found(_ context: DecodingError.Context) -> String {
    let text = context.debugDescription
    for (marker, kind) in [
      ("string", "a string"), ("number", "a number"), ("bool", "true or false"), ("array", "an array"),
      ("dictionary", "an object"), ("null", "null"),
    ]
    where text.lowercased().contains("found \(marker)") || text.lowercased().contains("but found a \(marker)")
      || text.lowercased().contains("but found an \(marker)")
    {
      return kind
    }
    return "something else (\(text))"
  }
}
