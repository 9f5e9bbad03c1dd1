import Foundation
import MediationKit

/// What a ``RemoteConfigSource`` reports as it runs.
public enum ConfigSourceEvent: Sendable, Equatable {
  /// A configuration is now in use (at start-up, or a refresh fetched a new one): the app applies
  /// it to its mediator.
  case inUse(ActiveConfig)
  /// A fetched configuration (or the cached copy) was rejected; the configuration in use, from
  /// `keeping`, stays. The reason lists every validation problem with its path.
  case rejected(SkippedConfig, keeping: ConfigOrigin)
}

/// The mediation configuration from a server over HTTPS, with a last-known-good copy on disk and a
/// configuration built into the app as the last resort.
///
/// ``start()`` picks, in order: a fresh configuration from the server → the cached copy of the last
/// good one → the bundled one, and says which is in use and why the others were skipped. Then
/// ``refresh(force:)`` (or ``startRefreshing()``) fetches again once the configuration's
/// `Cache-Control: max-age` has passed, with `If-None-Match` so an unchanged one costs a `304`.
///
/// A response that is not a valid configuration — an HTTP error, a time-out, a truncated,
/// over-size or malformed body, wrong types, unknown networks, any validation error — never
/// replaces the configuration in use: it is reported as ``ConfigSourceEvent/rejected(_:keeping:)``
/// with every problem and its path, and the cache keeps the last good copy. A damaged cache file is
/// ignored (and replaced by the next good fetch), never trusted.
///
/// Everything runs on this actor, off the caller's executor; time (backoff, max-age) is the
/// ``Scheduler``'s, so tests drive it with a ``VirtualScheduler``.
/// ```swift
/// let source = RemoteConfigSource(
///   url: URL(string: "https://config.example.com/mediation.json")!,
///   bundled: try BundledConfigSource(data: bundledJSON, validator: validator),
///   cacheDirectory: cachesDirectory, validator: validator, scheduler: DispatchScheduler())
/// let active = await source.start()       // active.origin: .remote, .cached or .bundled
/// Task { for await event in source.events { … } }  // later configurations and rejections
/// await source.startRefreshing()
/// ```
public actor RemoteConfigSource: ConfigSource {
  /// The configuration URL.
  public nonisolated let url: URL
  /// Every configuration put in use and every rejection, in order (one consumer).
  public nonisolated let events: AsyncStream<ConfigSourceEvent>

  private let bundled: BundledConfigSource
  private let cache: LastKnownGoodCache?
  private let validator: ConfigValidator
  private let policy: RemoteConfigPolicy
  private let scheduler: any Scheduler
  private let wallClock: @Sendable () -> Date
  private let continuation: AsyncStream<ConfigSourceEvent>.Continuation

  /// The configuration in use; `nil` before ``start()``.
  public private(set) var current: ActiveConfig?
  /// The `ETag` of the configuration in use, when it came from the server (or its cache).
  private var currentETag: String?
  /// When (on the scheduler's clock) the configuration in use stops being fresh.
  private var freshUntil: Duration = .zero
  private var refreshing: Cancellable?
  /// The mediators kept on the configuration in use (``keepApplied(to:)``).
  private var mediators: [Mediator] = []

  /// Creates a source; nothing is fetched before ``start()``.
  ///
  /// - Parameters:
  ///   - url: The configuration's URL (HTTPS in an app).
  ///   - bundled: The configuration built into the app, used when neither the server nor the cache
  ///     has a good one.
  ///   - cacheDirectory: Where to keep the last good copy (e.g. the app's caches directory);
  ///     `nil` keeps none.
  ///   - validator: How bytes become a configuration (the registry's network ids, the app's rules).
  ///   - policy: Timeout, retries, size limit, refresh intervals.
  ///   - scheduler: The clock for backoff and freshness.
  ///   - wallClock: The date a cached copy is saved with.
  public init(
    url: URL, bundled: BundledConfigSource, cacheDirectory: URL?, validator: ConfigValidator,
    policy: RemoteConfigPolicy = RemoteConfigPolicy(), scheduler: any Scheduler,
    wallClock: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.url = url
    self.bundled = bundled
    self.cache = cacheDirectory.map { LastKnownGoodCache(directory: $0, sourceURL: url) }
    self.validator = validator
    self.policy = policy
    self.scheduler = scheduler
    self.wallClock = wallClock
    (self.events, self.continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
  }

  /// ``start()`` the first time, then ``refresh(force:)``.
  public func load() async -> ActiveConfig {
    current == nil ? await start() : await refresh()
  }

  /// Picks the configuration to start on: fresh from the server, else the cached copy, else the
  /// bundled one; publishes it as ``ConfigSourceEvent/inUse(_:)``.
  ///
  /// - Returns: The configuration in use, its origin, and why the sources before it were skipped.
  @discardableResult
  public func start() async -> ActiveConfig {
    // Read first: its ETag makes the request conditional. Its problems count only if it is needed.
    let cacheRead = readCache()
    let cached = try? cacheRead.get()
    let active: ActiveConfig
    switch await fetch(etag: cached?.entry.etag, cachedBody: cached?.entry.body) {
    case .success(let fetched):
      active = ActiveConfig(
        config: fetched.config, origin: .remote(etag: fetched.etag, notModified: fetched.notModified))
      currentETag = fetched.etag
      freshUntil = scheduler.now + fetched.maxAge
    case .failure(let reason):
      var skipped = [SkippedConfig(source: .remote, reason: reason)]
      if case .failure(let cacheReason) = cacheRead {
        skipped.append(SkippedConfig(source: .cached, reason: cacheReason))
      }
      if let cached {
        active = ActiveConfig(
          config: cached.config, origin: .cached(etag: cached.entry.etag, savedAt: cached.entry.savedAt),
          skipped: skipped)
        currentETag = cached.entry.etag
      } else {
        active = ActiveConfig(config: bundled.config, origin: .bundled(name: bundled.name), skipped: skipped)
        currentETag = nil
      }
      freshUntil = scheduler.now + policy.retryAfterFailure
    }
    current = active
    if case .failure(let reason) = cacheRead, reason != .noCache {
      // Damaged or no longer valid: already removed; reported even when the server's answer won.
      continuation.yield(.rejected(SkippedConfig(source: .cached, reason: reason), keeping: active.origin))
    }
    continuation.yield(.inUse(active))
    return active
  }

  /// Fetches the configuration again when the one in use is no longer fresh (or always, with
  /// `force`), sending its `ETag`. A new valid configuration is put in use and cached; anything
  /// else keeps the one in use and is reported as ``ConfigSourceEvent/rejected(_:keeping:)``.
  ///
  /// - Returns: The configuration in use afterwards.
  @discardableResult
  public func refresh(force: Bool = false) async -> ActiveConfig {
    guard let previous = current else { return await start() }
    if !force && scheduler.now < freshUntil { return previous }
    let cachedBody = currentETag == nil ? nil : try? readCache().get().entry.body
    switch await fetch(etag: cachedBody == nil ? nil : currentETag, cachedBody: cachedBody) {
    case .success(let fetched):
      freshUntil = scheduler.now + fetched.maxAge
      if fetched.notModified && previous.config == fetched.config { return previous }
      let active = ActiveConfig(
        config: fetched.config, origin: .remote(etag: fetched.etag, notModified: fetched.notModified))
      if let refusal = applyToMediators(active.config) {
        continuation.yield(
          .rejected(SkippedConfig(source: .remote, reason: refusal), keeping: previous.origin))
        return previous
      }
      current = active
      currentETag = fetched.etag
      continuation.yield(.inUse(active))
      return active
    case .failure(let reason):
      freshUntil = scheduler.now + policy.retryAfterFailure
      continuation.yield(.rejected(SkippedConfig(source: .remote, reason: reason), keeping: previous.origin))
      return previous
    }
  }

  /// Keeps `mediator` on the configuration in use: applies it now (when ``start()`` has picked one
  /// and the mediator runs another) and every configuration a refresh puts in use, before
  /// ``events`` reports it. A configuration the mediator refuses (``Mediator/apply(_:)`` throws) is
  /// not put in use: it is reported as ``ConfigSourceEvent/rejected(_:keeping:)`` with
  /// ``ConfigFetchFailure/refusedByMediator(_:)``, and every mediator stays on the one in use.
  ///
  /// - Throws: ``MediationError`` when the configuration in use is refused by `mediator` (which
  ///   then keeps its own); `mediator` is not kept.
  public func keepApplied(to mediator: Mediator) throws(MediationError) {
    if let current, mediator.config != current.config { try mediator.apply(current.config) }
    mediators.append(mediator)
  }

  /// Applies `config` to every kept mediator; returns the refusal, if one refuses. The mediator
  /// validates as ``ConfigValidator`` does, so a configuration the source accepted is not refused
  /// in practice; the refusal is reported rather than trapped.
  private func applyToMediators(_ config: MediationConfig) -> ConfigFetchFailure? {
    for mediator in mediators {
      do throws(MediationError) {
        try mediator.apply(config)
      } catch {
        return .refusedByMediator(error.description)
      }
    }
    return nil
  }

  /// Refreshes each time the configuration in use stops being fresh (its `max-age`, or
  /// ``RemoteConfigPolicy/retryAfterFailure`` after a failure), on the scheduler's clock, until
  /// ``stopRefreshing()``. New configurations and rejections arrive on ``events``.
  public func startRefreshing() {
    refreshing?.cancel()
    let delay = max(.zero, freshUntil - scheduler.now)
    refreshing = scheduler.schedule(after: delay) { [weak self] in
      guard let self else { return }
      Task {
        await self.refresh()
        await self.startRefreshing()
      }
    }
  }

  /// Stops the refreshes ``startRefreshing()`` started.
  public func stopRefreshing() {
    refreshing?.cancel()
    refreshing = nil
  }

  /// Ends ``events``; the source fetches nothing more.
  public func finish() {
    stopRefreshing()
    continuation.finish()
  }

  // MARK: Fetching

  private struct Fetched {
    var config: MediationConfig
    var etag: String?
    var notModified: Bool
    var maxAge: Duration
  }

  /// One fetch with its retries: a valid configuration, or why there is none. A new body is cached.
  private func fetch(etag: String?, cachedBody: Data?) async -> Result<Fetched, ConfigFetchFailure> {
    var attempt = 1
    while true {
      let result = await fetchOnce(etag: etag, cachedBody: cachedBody)
      guard case .failure(let reason) = result, reason.isTransient, attempt < policy.maxAttempts else {
        return result
      }
      attempt += 1
      await pause(for: policy.backoff(beforeAttempt: attempt))
    }
  }

  private func fetchOnce(etag: String?, cachedBody: Data?) async -> Result<Fetched, ConfigFetchFailure> {
    let answer = await ConfigDownload.fetch(
      url, etag: etag, timeout: policy.requestTimeout, limit: policy.maxBodyBytes)
    let response: ConfigResponse
    switch answer {
    case .success(let value): response = value
    case .failure(let reason): return .failure(reason)
    }
    let age = maxAge(cacheControl: response.cacheControl) ?? policy.defaultMaxAge
    switch response.status {
    case 304:
      guard let cachedBody, let config = try? validator.validate(cachedBody, source: url.absoluteString)
      else {
        return .failure(.notModifiedWithoutCache)
      }
      return .success(Fetched(config: config, etag: response.etag ?? etag, notModified: true, maxAge: age))
    case 200:
      let config: MediationConfig
      do {
        config = try validator.validate(response.body, source: url.absoluteString)
      } catch {
        return .failure(.invalid(error))
      }
      // A cache that cannot be written costs the next offline start, not this configuration.
      _ = cache?.write(.init(body: response.body, etag: response.etag, savedAt: wallClock()))
      return .success(Fetched(config: config, etag: response.etag, notModified: false, maxAge: age))
    default:
      return .failure(.httpStatus(response.status))
    }
  }

  /// The cached copy, checked and validated; a damaged or invalid one is removed.
  private func readCache() -> Result<
    (entry: LastKnownGoodCache.Entry, config: MediationConfig), ConfigFetchFailure
  > {
    guard let cache else { return .failure(.noCache) }
    let entry: LastKnownGoodCache.Entry
    switch cache.read() {
    case .success(let value): entry = value
    case .failure(let reason):
      if reason != .noCache { cache.remove() }
      return .failure(reason)
    }
    do {
      return .success((entry, try validator.validate(entry.body, source: cache.fileURL.path)))
    } catch {
      cache.remove()
      return .failure(.invalid(error))
    }
  }

  /// Waits `delay` on the scheduler's clock, off every executor.
  private func pause(for delay: Duration) async {
    let scheduler = self.scheduler
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      scheduler.schedule(after: delay) { continuation.resume() }
    }
  }
}
