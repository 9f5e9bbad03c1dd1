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
    let active = waitFor { await source.start() }
    remoteConfig.keep(source)
    output.err("configuration: \(active.origin)")
    for skipped in active.skipped {
      let lines = skipped.description.split(separator: "\n", omittingEmptySubsequences: false)
      output.err("skipped " + lines.joined(separator: "\n  "))
    }
    for warning in active.warnings { output.err("warning: \(warning)") }
    switch active.origin {
    case .remote, .cached: return (active.config, "\(url.absoluteString), \(active.origin)")
    case .bundled, .file: return (active.config, bundledName)
    }
  }

}

/// The remote configuration source of one `mediate` invocation. A configuration fetched with
/// `--config-url` is a candidate until the command has run a cycle on it (``confirm(output:)``);
/// then it becomes the cache's last-known-good. A run that dies first leaves it a candidate, which
/// the next start skips and never tries again; a command that ends normally without running a
/// cycle (`mediate zones`) withdraws it, so it is neither promoted nor refused.
final class RemoteConfigRun: Sendable {
  private let source = Locked<RemoteConfigSource?>(nil)

  func keep(_ source: RemoteConfigSource) { self.source.withLock { $0 = source } }

  /// The command ran its cycle on the configuration: a candidate in use becomes last-known-good.
  func confirm(output: CLIOutput) {
    guard let source = source.withLock({ $0 }) else { return }
    if let failure = waitFor({ await source.confirmRunning() }) { output.err("warning: \(failure)") }
  }

  /// The command ends: a candidate not confirmed is withdrawn.
  func withdraw(output: CLIOutput) {
    guard let source = source.withLock({ $0.take() }) else { return }
    if let failure = waitFor({ await source.withdrawCandidate() }) { output.err("warning: \(failure)") }
  }
}

/// Runs `work` on the Swift concurrency pool and waits for its result on this thread.
private func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
  let result = Locked<T?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    let value = await work()
    result.withLock { $0 = value }
    done.signal()
  }
  done.wait()
  return result.withLock { $0! }  // stored before the signal
}
