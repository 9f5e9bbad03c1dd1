import Foundation
import MediationKit
import ReplayGuardPostgres
import ReplayGuardSQLite
import RewardCallbacks
import RewardCrypto

/// `mediate bench-callbacks`: how many server-to-server reward callbacks a publisher's server can
/// verify and claim per second through the library — Google SSV (an ECDSA P-256 signature) and MAX
/// (`{EVENT_TOKEN}`, a SHA-256) — with each replay guard: in memory, a SQLite file, and a
/// PostgreSQL database (with `--postgres URL`).
///
/// Each scenario verifies the same pre-made callbacks, each with an id of its own (every claim
/// succeeds, as for real traffic), from `--concurrency` threads at once, as a server's request
/// handlers would; the callbacks are made (signed) before the clock starts.
struct BenchCallbacksCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  /// The guards, in the order reported.
  enum GuardKind: String, CaseIterable {
    case memory, sqlite, postgres
  }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.benchCallbacks)
    let count = try context.wholeNumber(.callbacks, default: 20_000, range: 1...1_000_000, .benchCallbacks)
    let concurrency = try context.wholeNumber(.concurrency, default: 2, range: 1...256, .benchCallbacks)
    let postgres = context.arguments.value(.postgres)
    let callbacks = Self.makeCallbacks(count: count)
    let directory = NSTemporaryDirectory() + "mediate-bench-callbacks-\(UUID().uuidString)"
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    } catch {
      throw CLIError(kind: .io, message: "cannot create the scratch directory \(directory): \(error)")
    }
    defer { try? FileManager.default.removeItem(atPath: directory) }

    var rates: [String: Double?] = [:]
    for network in CallbackNetwork.allCases {
      for kind in GuardKind.allCases {
        let name = "\(network.rawValue)_\(kind.rawValue)"
        guard let replayGuard = try makeGuard(kind, file: "\(directory)/\(name).sqlite", postgres: postgres)
        else {
          rates[name] = .some(nil)
          continue
        }
        defer { replayGuard.cleanUp() }
        let verify = Self.verifier(network, callbacks: callbacks, replayGuard: replayGuard.guard)
        rates[name] = try Self.measure(count: count, concurrency: concurrency, verify: verify, name: name)
      }
    }
    report(rates, count: count, concurrency: concurrency)
    return ExitCode.success
  }

  // MARK: The workload

  /// `count` Google callbacks signed with one key, and `count` MAX callbacks, each with an id of its
  /// own, and what verifies them.
  struct Callbacks {
    let google: [String]
    let max: [String]
    let keys: VerifierKeys
    static let eventKey = "bench-event-key"
  }

  static func makeCallbacks(count: Int) -> Callbacks {
    do {
      let key = try P256SigningKey(rawScalar: [UInt8](repeating: 0x2a, count: 32))
      let google = try (0..<count).map { index in
        try SSVCallback(
          adNetwork: "5450213213286189855", adUnit: "1234567890", customData: nil, rewardAmount: 10,
          rewardItem: "coins", timestamp: 1_700_000_000_000 + Int64(index),
          transactionID: "bench-tx-\(index)",
          userID: "user-\(index % 1000)"
        ).signedURL(base: "https://publisher.example/ssv", key: key, keyID: 7)
      }
      let max = (0..<count).map { index in
        MaxCallbackTemplate.standard.expand(
          [
            .EVENT_ID: String(format: "%040x", index), .USER_ID: "user-\(index % 1000)", .AMOUNT: "10",
            .CURRENCY: "coins", .AD_UNIT_ID: "9ad0816ac071552a", .NETWORK_NAME: "APPLOVIN_BIDDING",
            .PLACEMENT: "level_complete", .IMPRESSION_TIMESTAMP: String(1_700_000_000_000 + index),
          ],
          eventKey: Callbacks.eventKey)
      }
      let published: [(id: UInt64, key: P256PublicKey)] = [(id: 7, key: key.publicKey)]
      return Callbacks(google: google, max: max, keys: .publishing(published))
    } catch {
      preconditionFailure("the benchmark's fixed key, base URL and fields are valid: \(error)")
    }
  }

  /// Verifies callback `index` of `network`; throws its rejection.
  static func verifier(_ network: CallbackNetwork, callbacks: Callbacks, replayGuard: any ReplayGuard)
    -> @Sendable (Int) throws(CallbackRejection) -> Void
  {
    switch network {
    case .google:
      let verifier = GoogleSSVVerifier(keys: callbacks.keys, replayGuard: replayGuard)
      let urls = callbacks.google
      return { (index) throws(CallbackRejection) in _ = try verifier.verify(urls[index]) }
    case .max:
      let verifier = MaxCallbackVerifier(eventKey: Callbacks.eventKey, replayGuard: replayGuard)
      let urls = callbacks.max
      return { (index) throws(CallbackRejection) in _ = try verifier.verify(urls[index]) }
    }
  }

  /// Callbacks verified per second: `count` callbacks from `concurrency` threads, each taking the
  /// next index. Every one must be accepted (a rejection means the benchmark is wrong).
  static func measure(
    count: Int, concurrency: Int, verify: @escaping @Sendable (Int) throws(CallbackRejection) -> Void,
    name: String
  ) throws(CLIError) -> Double {
    let next = Locked(0)
    let rejected = Locked(0)
    let started = ContinuousClock.now
    // Threads of their own, not `concurrentPerform` (which runs at most one per core): a server
    // has more requests in flight than cores, most of them waiting on the disk or the database.
    let done = DispatchGroup()
    for _ in 0..<concurrency {
      done.enter()
      Thread {
        defer { done.leave() }
        while true {
          let index = next.withLock { next in
            defer { next += 1 }
            return next
          }
          guard index < count else { return }
          do throws(CallbackRejection) {
            try verify(index)
          } catch {
            rejected.withLock { $0 += 1 }
          }
        }
      }.start()
    }
    done.wait()
    let seconds = (ContinuousClock.now - started).seconds
    let failures = rejected.get()
    guard failures == 0 else {
      // Every callback is valid and new: a rejection is the guard's storage failing.
      throw CLIError(kind: .io, message: "\(name): \(failures) of \(count) callbacks were rejected")
    }
    return Double(count) / seconds
  }

  // MARK: Guards

  /// A guard for one scenario, fresh (no claims), and how to remove what it left.
  struct ScenarioGuard {
    let `guard`: any ReplayGuard
    let cleanUp: () -> Void
  }

  private func makeGuard(_ kind: GuardKind, file: String, postgres: String?) throws(CLIError)
    -> ScenarioGuard?
  {
    do {
      switch kind {
      case .memory:
        return ScenarioGuard(guard: InMemoryReplayGuard(capacity: 1_000_000), cleanUp: {})
      case .sqlite:
        return ScenarioGuard(guard: try SQLiteReplayGuard(path: file), cleanUp: {})
      case .postgres:
        guard let postgres else { return nil }
        let table = "mediationkit_bench_" + UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(16)
        let replayGuard = try PostgresReplayGuard(url: postgres, table: String(table))
        return ScenarioGuard(guard: replayGuard, cleanUp: { try? replayGuard.dropTable() })
      }
    } catch {
      throw .replayGuard(error)
    }
  }

  // MARK: Output

  private func report(_ rates: [String: Double?], count: Int, concurrency: Int) {
    if context.json {
      var object: [String: Any] = [
        "callbacks": count, "concurrency": concurrency, "cores": ProcessInfo.processInfo.activeProcessorCount,
      ]
      for (name, rate) in rates {
        object["\(name)_per_s"] = rate.map { JSONLine.rounded($0, 1) } ?? NSNull()
      }
      context.output.out(JSONLine.encode(object))
      return
    }
    context.output.out(
      "\(count) callbacks verified and claimed per scenario, \(concurrency) at once, "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
    for network in CallbackNetwork.allCases {
      for kind in GuardKind.allCases {
        let label = "  \(network.rawValue) \(kind.rawValue)".padding(
          toLength: 20, withPad: " ", startingAt: 0)
        if let rate = rates["\(network.rawValue)_\(kind.rawValue)"] ?? nil {
          context.output.out(label + String(format: "%10.0f callbacks/s", rate))
        } else {
          context.output.out(label + "    skipped (no --postgres URL)")
        }
      }
    }
  }
}
