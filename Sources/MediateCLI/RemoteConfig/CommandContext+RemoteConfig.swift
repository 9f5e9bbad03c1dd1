import Dispatch
import Foundation
import MediationKit
import MediationKitRemoteConfig

extension CommandContext {
  /// With `--config-url URL [--config-cache DIR]`: the configuration from the server, else its
  /// cached copy, else the bundled one (`--config FILE` or the built-in default). Says on standard
  /// error which one is in use and why the others were not; a rejected remote configuration is a
  /// warning, not a failure, since the command runs on a good one.
  ///
  /// Blocks the calling thread while fetching (the fetch runs on the source's actor and
  /// URLSession's threads), so `mediate` must not be run from a Swift concurrency thread.
  ///
  /// - Returns: `nil` without `--config-url`.
  func loadRemoteConfig(bundledData: Data, bundledName: String) throws(CLIError) -> (
    MediationConfig, source: String
  )? {
    let cachePath = arguments.value(.configCache)
    guard let text = arguments.value(.configURL) else {
      if cachePath != nil { throw .usage("--config-cache needs --config-url", arguments.command) }
      return nil
    }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      ["http", "https"].contains(scheme),
      url.host != nil
    else {
      throw .usage(
        "invalid value '\(text)' for --config-url: expected an http:// or https:// URL", arguments.command)
    }
    var cacheDirectory: URL?
    if let cachePath {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: cachePath, isDirectory: &isDirectory), !isDirectory.boolValue
      {
        throw .usage(
          "invalid value '\(cachePath)' for --config-cache: expected a directory, found a file",
          arguments.command)
      }
      cacheDirectory = URL(fileURLWithPath: cachePath, isDirectory: true)
    }
    let validator = ConfigValidator(
      knownNetworks: registry.networkIDs, additionalChecks: ServerCallbackChecks.issues)
    let bundled: BundledConfigSource
    do {
      bundled = try BundledConfigSource(data: bundledData, name: bundledName, validator: validator)
    } catch {
      throw .data(error.description)
    }
    let source = RemoteConfigSource(
      url: url, bundled: bundled, cacheDirectory: cacheDirectory, validator: validator,
      scheduler: DispatchScheduler())
    let active = Self.waitFor { await source.start() }
    output.err("configuration: \(active.origin)")
    for skipped in active.skipped {
      let lines = skipped.description.split(separator: "\n", omittingEmptySubsequences: false)
      output.err("skipped " + lines.joined(separator: "\n  "))
    }
    switch active.origin {
    case .remote, .cached: return (active.config, "\(url.absoluteString), \(active.origin)")
    case .bundled, .file: return (active.config, bundledName)
    }
  }

  /// Runs `work` on the Swift concurrency pool and waits for its result on this thread.
  private static func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      let value = await work()
      result.withLock { $0 = value }
      done.signal()
    }
    done.wait()
    return result.withLock { $0! }
  }
}
