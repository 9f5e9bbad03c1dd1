import Foundation
import MediationKit

/// Somewhere a ``MediationConfig`` comes from: built into the app (``BundledConfigSource``), a file
/// (``FileConfigSource``), or a server (``RemoteConfigSource``, which falls back to its cache and
/// then to a bundled one).
public protocol ConfigSource: Sendable {
  /// Reads (or fetches) the configuration and says where the one in use came from.
  ///
  /// - Throws: ``MediationConfig.LoadError`` with every problem, path by path, when there is no valid
  ///   configuration to use. ``RemoteConfigSource`` never throws: it always has its bundled one.
  func load() async throws(MediationConfig.LoadError) -> ActiveConfig
}

/// The configuration in use, where it came from, and why the sources tried before it were not used.
public struct ActiveConfig: Sendable, Equatable {
  /// The validated configuration.
  public var config: MediationConfig
  /// Where it came from.
  public var origin: ConfigOrigin
  /// The sources tried first and skipped, in the order tried, each with its reason (empty when the
  /// first choice was used).
  public var skipped: [SkippedConfig]
  /// Problems that did not stop this configuration from being used, e.g.
  /// ``ConfigFetchFailure/cacheWriteFailed(_:)``: it will not be in the cache for the next start.
  public var warnings: [ConfigFetchFailure]

  /// Creates a description of the configuration in use.
  public init(
    config: MediationConfig, origin: ConfigOrigin, skipped: [SkippedConfig] = [],
    warnings: [ConfigFetchFailure] = []
  ) {
    self.config = config
    self.origin = origin
    self.skipped = skipped
    self.warnings = warnings
  }
}

/// Where a configuration in use came from.
public enum ConfigOrigin: Sendable, Equatable, CustomStringConvertible {
  /// Fetched from the server just now. `notModified`: the server answered `304` to the cached
  /// copy's `ETag`, so the cached copy is the server's current one.
  case remote(etag: String?, notModified: Bool)
  /// The last-known-good remote configuration (one the app confirmed it ran on), from the on-disk
  /// cache, saved at `savedAt`.
  case cached(etag: String?, savedAt: Date)
  /// Built into the app; `name` says which (e.g. "built-in default").
  case bundled(name: String)
  /// Read from the configuration file at `path`.
  case file(path: String)

  /// `remote (ETag "v2")`, `cached (ETag "v1", saved 2026-…)`, `bundled (built-in default)`, `file (…)`.
  public var description: String {
    switch self {
    case .remote(let etag, let notModified):
      "remote (\(Self.describe(etag))\(notModified ? ", not modified since the cached copy" : ""))"
    case .cached(let etag, let savedAt):
      "cached (\(Self.describe(etag)), saved \(savedAt.formatted(.iso8601)))"
    case .bundled(let name): "bundled (\(name))"
    case .file(let path): "file (\(path))"
    }
  }

  private static func describe(_ etag: String?) -> String {
    etag.map { "ETag \($0)" } ?? "no ETag"
  }
}

/// A source tried before the one in use, and why it was not used.
public struct SkippedConfig: Sendable, Equatable, CustomStringConvertible {
  /// Which kind of source was skipped.
  public enum Source: String, Sendable, Equatable {
    /// The server.
    case remote
    /// The on-disk cache of the last good remote configuration.
    case cached
    /// The fetched configuration the previous run put in use and never confirmed to have run.
    case candidate
  }

  /// What was skipped.
  public var source: Source
  /// Why.
  public var reason: ConfigFetchFailure

  /// Creates a skipped source with its reason.
  public init(source: Source, reason: ConfigFetchFailure) {
    self.source = source
    self.reason = reason
  }

  /// `remote: HTTP 500` or `cached: …`, one issue per line for an invalid configuration.
  public var description: String { "\(source.rawValue): \(reason)" }
}

/// How configuration bytes become a ``MediationConfig``: MediationKit's `MediationConfig.load` (decoding
/// and validation, with the network ids line items may use), plus checks of the app's own.
public struct ConfigValidator: Sendable {
  private let knownNetworks: [NetworkID]?
  private let additionalChecks: @Sendable (MediationConfig) -> [MediationConfig.Issue]

  /// Creates a validator.
  ///
  /// - Parameters:
  ///   - knownNetworks: The network ids line items may use (the registry's); `nil` skips that check.
  ///   - additionalChecks: More rules, run on a configuration `MediationConfig.load` accepted; each
  ///     issue it returns rejects the configuration.
  public init(
    knownNetworks: [NetworkID]?,
    additionalChecks: @escaping @Sendable (MediationConfig) -> [MediationConfig.Issue] = { _ in [] }
  ) {
    self.knownNetworks = knownNetworks
    self.additionalChecks = additionalChecks
  }

  /// Decodes and validates `data`.
  ///
  /// - Parameters:
  ///   - data: The JSON document.
  ///   - source: Where it came from, for messages (a URL, a path).
  /// - Throws: ``MediationConfig.LoadError`` listing every problem with its path.
  public func validate(_ data: Data, source: String) throws(MediationConfig.LoadError) -> MediationConfig {
    try check(MediationConfig.load(data, source: source, knownNetworks: knownNetworks), source: source)
  }

  /// Reads and validates the configuration file at `url`.
  ///
  /// - Throws: ``MediationConfig.LoadError`` when the file cannot be read or is not a valid configuration.
  public func validate(contentsOf url: URL) throws(MediationConfig.LoadError) -> MediationConfig {
    try check(MediationConfig.load(contentsOf: url, knownNetworks: knownNetworks), source: url.path)
  }

  private func check(_ config: MediationConfig, source: String) throws(MediationConfig.LoadError)
    -> MediationConfig
  {
    let issues = additionalChecks(config)
    if !issues.isEmpty { throw MediationConfig.LoadError(source: source, issues: issues) }
    return config
  }
}

/// A configuration built into the app: the last resort of a ``RemoteConfigSource``.
public struct BundledConfigSource: ConfigSource {
  /// The validated configuration.
  public let config: MediationConfig
  /// What the configuration is called in messages, e.g. "built-in default".
  public let name: String

  /// Validates a configuration document shipped with the app (e.g. a resource file's bytes).
  ///
  /// - Throws: ``MediationConfig.LoadError`` when the document is not a valid configuration: a bundled
  ///   configuration must be good, so this is found at start-up, not later.
  public init(data: Data, name: String = "bundled", validator: ConfigValidator) throws(MediationConfig
    .LoadError)
  {
    self.config = try validator.validate(data, source: name)
    self.name = name
  }

  /// Uses a configuration the app built in code, after checking it.
  ///
  /// - Throws: ``MediationConfig.LoadError`` listing the problems when `config` is not valid.
  public init(_ config: MediationConfig, name: String = "bundled", knownNetworks: [NetworkID]?)
    throws(MediationConfig.LoadError)
  {
    let issues = config.validate(knownNetworks: knownNetworks)
    if !issues.isEmpty { throw MediationConfig.LoadError(source: name, issues: issues) }
    self.config = config
    self.name = name
  }

  public func load() async -> ActiveConfig {
    ActiveConfig(config: config, origin: .bundled(name: name))
  }
}

/// A configuration file, read and validated on each ``load()``.
public struct FileConfigSource: ConfigSource {
  /// The file.
  public let url: URL
  private let validator: ConfigValidator

  /// Creates a source reading `url` with `validator`.
  public init(url: URL, validator: ConfigValidator) {
    self.url = url
    self.validator = validator
  }

  public func load() async throws(MediationConfig.LoadError) -> ActiveConfig {
    ActiveConfig(config: try validator.validate(contentsOf: url), origin: .file(path: url.path))
  }
}
