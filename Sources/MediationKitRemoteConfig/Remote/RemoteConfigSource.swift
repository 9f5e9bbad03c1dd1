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
/// ``start()`` picks, in order: a fresh configuration from the server → the cached last-known-good
/// → the bundled one, and says which is in use and why the others were skipped. Then
/// ``refresh(force:)`` (or ``startRefreshing()``) fetches again once the configuration's
/// `Cache-Control: max-age` has passed, with `If-None-Match` so an unchanged one costs a `304`.
///
/// A response that is not a valid configuration — an HTTP error, a time-out, a truncated,
/// over-size or malformed body, wrong types, unknown networks, any validation error — never
/// replaces the configuration in use: it is reported as ``ConfigSourceEvent/rejected(_:keeping:)``
/// with every problem and its path, and the cache keeps the last good copy. A damaged cache file is
/// ignored (and replaced by the next good fetch), never trusted.
///
/// ## A last-known-good that is known good
///
/// A valid configuration can still crash or stall the app. So a newly fetched configuration is
/// first stored as a *candidate*, before it is put in use; it becomes the last-known-good only
/// once the app has run on it: when a mediator kept with ``keepApplied(to:)`` completes a load
/// (an ad ready, or a load failed) after it was applied, or when the app calls
/// ``confirmRunning()``. A ``start()`` that finds a candidate still there — the previous run ended
/// before confirming it, perhaps because that configuration crashed it — does not try it again: it
/// reports ``ConfigFetchFailure/candidateNeverRan(etag:savedAt:)``, remembers the body's
/// fingerprint, refuses the same body from the server (``ConfigFetchFailure/neverRanBefore(etag:)``)
/// until the server sends a different one, and uses the previous last-known-good (else the bundled
/// configuration). A configuration that takes the app down is therefore tried at most once per
/// device. This holds only with a cache directory the source can write: without one (or when the
/// write fails, reported in ``ActiveConfig/warnings``) a fetched configuration is used unguarded.
///
/// The cache file is checksummed over its metadata too (`ETag`, saved date, URL), and tied to the
/// configuration URL that filled it: a copy filled from another URL is not served
/// (``ConfigFetchFailure/cacheForAnotherURL(_:)``). The source replaces or removes only a regular
/// file at the cache's own file name; anything else there is reported and left alone. One process
/// at a time should use a cache directory.
///
/// Redirects are followed only to the same origin (scheme, host and port) as ``url``; a redirect
/// elsewhere is refused as ``ConfigFetchFailure/redirectRefused(to:)``, so the configuration in use is
/// always the one ``url`` names.
///
/// Everything runs on this actor, off the caller's executor; time (backoff, max-age) is the
/// ``Scheduler``'s, so tests drive it with a ``VirtualScheduler``.
/// ```swift
/// let source = RemoteConfigSource(
///   url: URL(string: "https://config.example.com/mediation.json")!,
///   bundled: try BundledConfigSource(data: bundledJSON, validator: validator),
///   cacheDirectory: cachesDirectory, validator: validator, scheduler: DispatchScheduler())
/// let active = await source.start()       // active.origin: .remote, .cached or .bundled
/// try await source.keepApplied(to: mediator)  // its first completed load confirms a candidate
/// Task { for await event in source.events { … } }  // later configurations and rejections
/// await source.startRefreshing()
/// ```
public actor RemoteConfigSource: ConfigSource {
  /// The configuration URL.
  public nonisolated let url: URL
  /// Every configuration put in use and every rejection, in order (one consumer).
  public nonisolated let events: AsyncStream<ConfigSourceEvent>

  private typealias Entry = LastKnownGoodCache.Entry

  private let bundled: BundledConfigSource
  private let cache: LastKnownGoodCache?
  private let validator: ConfigValidator
  private let policy: RemoteConfigPolicy
  private let scheduler: any Scheduler
  private let wallClock: @Sendable () -> Date
  private let continuation: AsyncStream<ConfigSourceEvent>.Continuation

  /// The configuration in use; `nil` before ``start()``.
  public private(set) var current: ActiveConfig?
  /// The body and `ETag` of the configuration in use, when it came from the server (or its cache):
  /// what a conditional request revalidates.
  private var currentEntry: Entry?
  /// The cache file's state as this source last read or wrote it.
  private var stored = LastKnownGoodCache.State()
  /// Whether the configuration in use is the stored candidate, not yet confirmed.
  private var onCandidate = false {
    didSet {
      let awaiting = onCandidate
      confirmation.withLock { $0.awaiting = awaiting }
    }
  }
  /// Whether a kept mediator's next completed load confirms the candidate in use, and the task
  /// doing so (tests wait on it). Read by the mediators' observers, off this actor.
  private nonisolated let confirmation = Locked<(awaiting: Bool, task: Task<Void, Never>?)>((false, nil))
  /// When (on the scheduler's clock) the configuration in use stops being fresh.
  private var freshUntil: Duration = .zero
  private var refreshing: Cancellable?
  /// The mediators kept on the configuration in use (``keepApplied(to:)``), and their observations.
  private var mediators: [Mediator] = []
  private var observations: [Cancellable] = []

  /// Creates a source; nothing is fetched before ``start()``.
  ///
  /// - Parameters:
  ///   - url: The configuration's URL (HTTPS in an app).
  ///   - bundled: The configuration built into the app, used when neither the server nor the cache
  ///     has a good one.
  ///   - cacheDirectory: Where to keep the last-known-good copy and the candidate (e.g. the app's
  ///     caches directory); `nil` keeps none.
  ///   - validator: How bytes become a configuration (the registry's network ids, the app's rules).
  ///   - policy: Timeout, retries, size limit, refresh intervals.
  ///   - scheduler: The clock for backoff and freshness.
  ///   - wallClock: The date a cached copy is saved with (and stale temporary files are aged by).
  public init(
    url: URL, bundled: BundledConfigSource, cacheDirectory: URL?, validator: ConfigValidator,
    policy: RemoteConfigPolicy = RemoteConfigPolicy(), scheduler: any Scheduler,
    wallClock: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.url = url
    self.bundled = bundled
    self.cache = cacheDirectory.map {
      LastKnownGoodCache(directory: $0, sourceURL: url, maxBodyBytes: policy.maxBodyBytes)
    }
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

  /// Picks the configuration to start on: fresh from the server, else the cached last-known-good,
  /// else the bundled one; publishes it as ``ConfigSourceEvent/inUse(_:)``. A candidate the
  /// previous run left unconfirmed is skipped and not tried again (see the type's documentation).
  ///
  /// - Returns: The configuration in use, its origin, why the sources before it were skipped, and
  ///   the cache problems that did not stop it (``ActiveConfig/warnings``).
  @discardableResult
  public func start() async -> ActiveConfig {
    var skipped: [SkippedConfig] = []
    var warnings: [ConfigFetchFailure] = []
    let (lastKnownGood, cacheProblem) = readCache(skipped: &skipped, warnings: &warnings)
    let active: ActiveConfig
    switch await fetch(revalidating: lastKnownGood?.entry) {
    case .success(let fetched):
      if !fetched.notModified, let failure = store(fetched.entry) { warnings.append(failure) }
      active = ActiveConfig(
        config: fetched.config, origin: .remote(etag: fetched.entry.etag, notModified: fetched.notModified),
        skipped: skipped, warnings: warnings)
      currentEntry = fetched.entry
      freshUntil = scheduler.now + fetched.maxAge
    case .failure(let reason):
      skipped.append(SkippedConfig(source: .remote, reason: reason))
      if let cacheProblem { skipped.append(SkippedConfig(source: .cached, reason: cacheProblem)) }
      if let lastKnownGood {
        active = ActiveConfig(
          config: lastKnownGood.config,
          origin: .cached(etag: lastKnownGood.entry.etag, savedAt: lastKnownGood.entry.savedAt),
          skipped: skipped, warnings: warnings)
        currentEntry = lastKnownGood.entry
      } else {
        active = ActiveConfig(
          config: bundled.config, origin: .bundled(name: bundled.name), skipped: skipped, warnings: warnings)
        currentEntry = nil
      }
      freshUntil = scheduler.now + policy.retryAfterFailure
    }
    current = active
    for skip in skipped where skip.source == .candidate {
      continuation.yield(.rejected(skip, keeping: active.origin))
    }
    if let cacheProblem, cacheProblem != .noCache {
      // Damaged, unusable or no longer valid: reported even when the server's answer won.
      continuation.yield(
        .rejected(SkippedConfig(source: .cached, reason: cacheProblem), keeping: active.origin))
    }
    continuation.yield(.inUse(active))
    return active
  }

  /// Fetches the configuration again when the one in use is no longer fresh (or always, with
  /// `force`), sending its `ETag`. A new valid configuration is stored as the candidate, applied to
  /// the kept mediators and put in use; anything else keeps the one in use and is reported as
  /// ``ConfigSourceEvent/rejected(_:keeping:)``.
  ///
  /// - Returns: The configuration in use afterwards.
  @discardableResult
  public func refresh(force: Bool = false) async -> ActiveConfig {
    guard let previous = current else { return await start() }
    if !force && scheduler.now < freshUntil { return previous }
    switch await fetch(revalidating: currentEntry) {
    case .success(let fetched):
      freshUntil = scheduler.now + fetched.maxAge
      if fetched.notModified && previous.config == fetched.config { return previous }
      // Stored as the candidate before any mediator runs on it, so a crash from here on is known
      // at the next start.
      let before = (stored, onCandidate)
      var warnings: [ConfigFetchFailure] = []
      if !fetched.notModified, let failure = store(fetched.entry) { warnings.append(failure) }
      let active = ActiveConfig(
        config: fetched.config, origin: .remote(etag: fetched.entry.etag, notModified: fetched.notModified),
        warnings: warnings)
      if let refusal = applyToMediators(active.config) {
        (stored, onCandidate) = before
        _ = cache?.write(stored)
        continuation.yield(
          .rejected(SkippedConfig(source: .remote, reason: refusal), keeping: previous.origin))
        return previous
      }
      current = active
      currentEntry = fetched.entry
      continuation.yield(.inUse(active))
      return active
    case .failure(let reason):
      freshUntil = scheduler.now + policy.retryAfterFailure
      continuation.yield(.rejected(SkippedConfig(source: .remote, reason: reason), keeping: previous.origin))
      return previous
    }
  }

  /// Confirms that the app ran on the configuration in use: when it is a candidate, it becomes the
  /// last-known-good (the one a later start falls back to). A mediator kept with
  /// ``keepApplied(to:)`` confirms it by itself at its first completed load; call this when the app
  /// has another measure of health (e.g. a first screen shown).
  ///
  /// - Returns: Why the cache could not record it, if it could not (the candidate then stays a
  ///   candidate, and the next start skips it).
  @discardableResult
  public func confirmRunning() -> ConfigFetchFailure? {
    guard onCandidate, let cache, let candidate = stored.candidate else { return nil }
    var next = stored
    next.lastKnownGood = candidate
    next.candidate = nil
    if let failure = cache.write(next) { return failure }
    stored = next
    onCandidate = false
    return nil
  }

  /// Forgets the candidate in use without judging it, for a run that never put it to work (a
  /// command that only prints the configuration): the next start neither skips nor refuses it.
  package func withdrawCandidate() -> ConfigFetchFailure? {
    guard onCandidate, let cache else { return nil }
    var next = stored
    next.candidate = nil
    if let failure = cache.write(next) { return failure }
    stored = next
    onCandidate = false
    return nil
  }

  /// Keeps `mediator` on the configuration in use: applies it now (when ``start()`` has picked one
  /// and the mediator runs another) and every configuration a refresh puts in use, before
  /// ``events`` reports it. A configuration the mediator refuses (``Mediator/apply(_:)`` throws) is
  /// not put in use: it is reported as ``ConfigSourceEvent/rejected(_:keeping:)`` with
  /// ``ConfigFetchFailure/refusedByMediator(_:)``, and every mediator stays on the one in use.
  /// The mediator's completed loads (an ad ready, a load failed) confirm a candidate in use
  /// (``confirmRunning()``).
  ///
  /// - Throws: ``MediationError`` when the configuration in use is refused by `mediator` (which
  ///   then keeps its own); `mediator` is not kept.
  public func keepApplied(to mediator: Mediator) throws(MediationError) {
    if let current, mediator.config != current.config { try mediator.apply(current.config) }
    mediators.append(mediator)
    observations.append(
      mediator.observeEvents { [weak self] event in
        switch event.event {
        case .ready, .failed: break
        default: return
        }
        guard let self else { return }
        let confirms = self.confirmation.withLock { state -> Bool in
          defer { state.awaiting = false }
          return state.awaiting
        }
        guard confirms else { return }
        let task = Task { await self.loadCompleted() }
        self.confirmation.withLock { $0.task = task }
      })
  }

  /// Waits for the confirmation a kept mediator's completed load started, if one did.
  nonisolated func confirmationSettled() async {
    await confirmation.withLock { $0.task }?.value
  }

  /// A kept mediator completed a load: the configuration in use ran.
  private func loadCompleted() {
    guard onCandidate else { return }
    if let failure = confirmRunning(), let current {
      continuation.yield(.rejected(SkippedConfig(source: .cached, reason: failure), keeping: current.origin))
    }
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
  /// ``RemoteConfigPolicy/retryAfterFailure`` after a failure), but never sooner than
  /// ``RemoteConfigPolicy/minimumRefreshInterval`` after the last one, on the scheduler's clock,
  /// until ``stopRefreshing()``. New configurations and rejections arrive on ``events``.
  public func startRefreshing() {
    refreshing?.cancel()
    let delay = max(policy.minimumRefreshInterval, freshUntil - scheduler.now)
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

  /// Ends ``events``; the source fetches nothing more and stops watching the kept mediators.
  public func finish() {
    stopRefreshing()
    for observation in observations { observation.cancel() }
    observations = []
    continuation.finish()
  }

  // MARK: The cache

  /// Reads the cache at start-up: skips (and remembers) a candidate left unconfirmed, validates
  /// the last-known-good, and removes what is damaged.
  /// - Returns: The last-known-good to fall back to, and why there is none (`nil` when there is).
  private func readCache(
    skipped: inout [SkippedConfig], warnings: inout [ConfigFetchFailure]
  ) -> (lastKnownGood: (entry: Entry, config: MediationConfig)?, problem: ConfigFetchFailure?) {
    stored = LastKnownGoodCache.State()
    onCandidate = false
    guard let cache else { return (nil, .noCache) }
    cache.removeStaleTemporaryFiles(now: wallClock())
    var state: LastKnownGoodCache.State
    switch cache.read() {
    case .success(let value): state = value
    case .failure(let reason):
      if case .corruptCache = reason { cache.remove() }
      return (nil, reason)
    }
    var changed = false
    if let candidate = state.candidate {
      let fingerprint = LastKnownGoodCache.Fingerprint(candidate.body)
      state.refused = Array(
        (state.refused.filter { $0 != fingerprint } + [fingerprint]).suffix(LastKnownGoodCache.refusedLimit))
      state.candidate = nil
      changed = true
      skipped.append(
        SkippedConfig(
          source: .candidate, reason: .candidateNeverRan(etag: candidate.etag, savedAt: candidate.savedAt)))
    }
    var result: (lastKnownGood: (entry: Entry, config: MediationConfig)?, problem: ConfigFetchFailure?) = (
      nil, .noCache
    )
    if let entry = state.lastKnownGood {
      do {
        result = ((entry, try validator.validate(entry.body, source: cache.fileURL.path)), nil)
      } catch {
        state.lastKnownGood = nil
        changed = true
        result = (nil, .invalid(error))
      }
    }
    stored = state
    if changed, let failure = cache.write(state) { warnings.append(failure) }
    return result
  }

  /// Stores a newly fetched body as the candidate; the last-known-good's own body is stored as
  /// the last-known-good again (it has run), with its new `ETag`.
  /// - Returns: Why the cache could not be written, if it could not.
  private func store(_ entry: Entry) -> ConfigFetchFailure? {
    guard let cache else { return nil }
    var next = stored
    let isCandidate = next.lastKnownGood?.body != entry.body
    if isCandidate {
      next.candidate = entry
    } else {
      next.lastKnownGood = entry
      next.candidate = nil
    }
    if let failure = cache.write(next) {
      onCandidate = false
      return failure
    }
    stored = next
    onCandidate = isCandidate
    return nil
  }

  // MARK: Fetching

  private struct Fetched {
    var config: MediationConfig
    /// The body, the server's `ETag` and when it arrived (a `304`: the revalidated entry).
    var entry: Entry
    var notModified: Bool
    var maxAge: Duration
  }

  /// One fetch with its retries: a valid configuration, or why there is none.
  private func fetch(revalidating entry: Entry?) async -> Result<Fetched, ConfigFetchFailure> {
    var attempt = 1
    while true {
      let result = await fetchOnce(revalidating: entry)
      guard case .failure(let reason) = result, reason.isTransient, attempt < policy.maxAttempts else {
        return result
      }
      attempt += 1
      await pause(for: policy.backoff(beforeAttempt: attempt))
    }
  }

  /// Whether an `ETag` can go back in an `If-None-Match` header: printable ASCII, at most 8 kB.
  private static func isSendable(_ etag: String) -> Bool {
    etag.utf8.count <= 8192 && !etag.isEmpty && etag.utf8.allSatisfy { (0x20..<0x7F).contains($0) }
  }

  private func fetchOnce(revalidating entry: Entry?) async -> Result<Fetched, ConfigFetchFailure> {
    let etag = entry?.etag.flatMap { Self.isSendable($0) ? $0 : nil }
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
      guard let entry, etag != nil,
        let config = try? validator.validate(entry.body, source: url.absoluteString)
      else {
        return .failure(.notModifiedWithoutCache)
      }
      var revalidated = entry
      revalidated.etag = response.etag ?? entry.etag
      return .success(Fetched(config: config, entry: revalidated, notModified: true, maxAge: age))
    case 200:
      if stored.refused.contains(LastKnownGoodCache.Fingerprint(response.body)) {
        return .failure(.neverRanBefore(etag: response.etag))
      }
      let config: MediationConfig
      do {
        config = try validator.validate(response.body, source: url.absoluteString)
      } catch {
        return .failure(.invalid(error))
      }
      return .success(
        Fetched(
          config: config, entry: Entry(body: response.body, etag: response.etag, savedAt: wallClock()),
          notModified: false, maxAge: age))
    default:
      return .failure(.httpStatus(response.status))
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
