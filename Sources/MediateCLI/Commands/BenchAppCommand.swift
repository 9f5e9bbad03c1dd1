import Dispatch
import Foundation
import MediationKit
import MediationKitTesting

/// `mediate bench-app`: what the engine costs an app. Whole rewarded cycles (load → ready → show →
/// rewarded → closed) on a ``DispatchScheduler`` and real threads, the way an app runs the
/// mediator: the engine's executor is a serial queue standing in for the main queue, and the
/// network answers at once from a global queue, as an SDK calls back from its own threads.
///
/// Two figures, each as a median and a 99th percentile:
/// - the process's CPU time per cycle, every thread counted (the engine, the hops between
///   queues, the instant network's own dispatches);
/// - the time each piece of work holds the executor, which in an app is the main thread: every
///   action the engine runs there (an event delivery with its subscribers, a timer) and the
///   app's own `load()` and `show(from:)` calls, as thread CPU time and as wall time.
///
/// The instant network costs next to nothing, so the figures are the engine's and Dispatch's; a
/// real SDK and its network round trip add 100–3,000 ms of wall time per load.
struct BenchAppCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.benchApp)
    let cycles = try context.wholeNumber(.cycles, default: 20_000, range: 1...1_000_000, .benchApp)
    let recording = context.arguments.has(.flightRecorder)
    // Warm up the code paths, the allocator and Dispatch's thread pool, then measure.
    _ = try Self.measure(cycles: min(cycles, 1_000), recording: recording)
    let run = try Self.measure(cycles: cycles, recording: recording)
    let cycle = Percentiles(run.cycleCPU)
    let actionCPU = Percentiles(run.actionCPU)
    let actionWall = Percentiles(run.actionWall)
    if context.json {
      context.output.out(
        JSONLine.encode([
          "cycles": cycles, "flight_recorder": recording, "recorded_inputs": run.recordedInputs,
          "executor_actions": run.actionCPU.count,
          "cycle_cpu_us_median": cycle.median, "cycle_cpu_us_p99": cycle.p99,
          "executor_hold_cpu_us_median": actionCPU.median, "executor_hold_cpu_us_p99": actionCPU.p99,
          "executor_hold_cpu_us_max": actionCPU.max,
          "executor_hold_wall_us_median": actionWall.median, "executor_hold_wall_us_p99": actionWall.p99,
        ]))
    } else {
      context.output.out(
        """
        \(cycles) rewarded cycles (load → ready → show → rewarded → closed) on DispatchScheduler, \
        real threads, a network that answers at once\(recording ? ", the flight recorder on" : "")
          CPU per cycle, all threads        median \(cycle.text(\.median))  p99 \(cycle.text(\.p99))
          executor hold per action, CPU     median \(actionCPU.text(\.median))  p99 \(actionCPU.text(\.p99))  \
        max \(actionCPU.text(\.max))
          executor hold per action, wall    median \(actionWall.text(\.median))  p99 \(actionWall.text(\.p99))
          (\(run.actionCPU.count) pieces of work on the executor: engine actions and the app's load/show calls)
        """)
    }
    return ExitCode.success
  }

  /// What one run measured, in microseconds.
  struct Run {
    var cycleCPU: [Double] = []
    var actionCPU: [Double] = []
    var actionWall: [Double] = []
    /// The inputs the flight recorder holds at the end (0 without it).
    var recordedInputs = 0
  }

  /// Each show's late-signal window, shortened so that every cycle's window ends within the run
  /// and its timer and discard are measured, as each show's are in an app. With the default
  /// 60 s, a run's 20,000 ended shows would all still be waiting at its end: an app, whose
  /// shows are tens of seconds apart, never holds more than a few.
  static let lateSignalWindow = Duration.milliseconds(1)

  /// Runs `cycles` cycles, the zone recording when `recording`, and returns what each cost.
  static func measure(cycles: Int, recording: Bool = false) throws(CLIError) -> Run {
    let queue = DispatchQueue(label: "bench-app.main")
    let scheduler = TimedScheduler(DispatchScheduler(queue: queue))
    let zone = ZoneConfig(
      id: "bench", reward: ZoneConfig.RewardConfig(type: "coins", amount: 10),
      lineItems: [
        ZoneConfig.LineItem(network: InstantAdapter.network, placementId: "instant", priority: 0, ecpm: 10)
      ],
      autoReload: false)
    let mediator: Mediator
    let ad: RewardedAd
    do {
      let registry = try AdapterRegistry([
        AdapterRegistry.Registration(info: InstantAdapter.info) { _ in InstantAdapter() }
      ])
      mediator = try Mediator(
        config: MediationConfig(zones: [zone]), registry: registry, scheduler: scheduler,
        options: MediatorOptions(
          lateSignalWindow: lateSignalWindow,
          flightRecorder: MediatorOptions.FlightRecorder(isEnabled: recording)))
      ad = try mediator.rewardedAd(zone: zone.id)
    } catch {
      throw .data("could not make the benchmark's mediator: \(error)")
    }
    let loop = CycleLoop(ad: ad, queue: queue, scheduler: scheduler, cycles: cycles)
    let subscription = mediator.observeEvents { event in loop.handle(event.event) }
    queue.async { loop.begin() }
    loop.done.wait()
    subscription.cancel()
    // The last cycle's late-signal window and the like are still queued; they are not measured.
    return Run(
      cycleCPU: loop.cycleCPU, actionCPU: scheduler.cpu, actionWall: scheduler.wall,
      recordedInputs: mediator.exportRecording().inputCount)
  }
}

/// The app: load, show on `ready`, load again after the terminal event; each call dispatched onto
/// the executor queue as its own piece of work, as an app's button handler or view model runs.
private final class CycleLoop: Sendable {
  let ad: RewardedAd
  let queue: DispatchQueue
  let scheduler: TimedScheduler
  let cycles: Int
  let done = DispatchSemaphore(value: 0)
  private let presenter = HeadlessPresenter()
  /// Touched only on `queue` (the executor), so serial; behind a lock for the compiler.
  private let state = Locked(State())

  private struct State {
    var completed = 0
    var cycleStart: UInt64 = 0
    var cycleCPU: [Double] = []
  }

  init(ad: RewardedAd, queue: DispatchQueue, scheduler: TimedScheduler, cycles: Int) {
    self.ad = ad
    self.queue = queue
    self.scheduler = scheduler
    self.cycles = cycles
  }

  var cycleCPU: [Double] { state.withLock { $0.cycleCPU } }

  func begin() {
    state.withLock { $0.cycleStart = CPUClock.process() }
    scheduler.timed { ad.load() }
  }

  func handle(_ event: RewardedAdEvent) {
    switch event {
    case .ready:
      queue.async { [self] in scheduler.timed { try? ad.show(from: presenter) } }
    case .closed, .skipped, .showFailed, .failed:
      let finished = state.withLock { state -> Bool in
        state.cycleCPU.append(Double(CPUClock.process() - state.cycleStart) / 1_000)
        state.completed += 1
        return state.completed >= cycles
      }
      if finished {
        done.signal()
      } else {
        queue.async { [self] in begin() }
      }
    default:
      break
    }
  }
}

/// A ``Scheduler`` that runs on another and times every action it runs: thread CPU time and wall
/// time, in microseconds.
private final class TimedScheduler: Scheduler {
  private let base: DispatchScheduler
  private let samples = Locked((cpu: [Double](), wall: [Double]()))

  init(_ base: DispatchScheduler) { self.base = base }

  var now: Duration { base.now }

  var cpu: [Double] { samples.withLock { $0.cpu } }
  var wall: [Double] { samples.withLock { $0.wall } }

  @discardableResult
  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    base.schedule(after: delay) { [self] in timed(action) }
  }

  /// Runs `body` on the calling thread (the executor) and records how long it held it.
  func timed(_ body: () -> Void) {
    let cpuStart = CPUClock.thread()
    let wallStart = DispatchTime.now().uptimeNanoseconds
    body()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1_000
    let cpu = Double(CPUClock.thread() - cpuStart) / 1_000
    samples.withLock { samples in
      samples.cpu.append(cpu)
      samples.wall.append(wall)
    }
  }
}

/// A network that fills every load and plays every ad to its reward at once, answering from a
/// global queue.
private final class InstantAdapter: RewardedAdapter {
  static let network = NetworkID("instant")
  static let info = AdapterInfo(
    id: network, displayName: "Instant (benchmark)", adapterVersion: "1.0.0", sdkVersion: "1.0.0",
    adapterAPIVersion: AdapterCompatibility.coreAPIVersion,
    supportedSDKVersions: SemanticVersion(1, 0, 0)..<SemanticVersion(2, 0, 0))

  var info: AdapterInfo { Self.info }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    completion(.success(()))
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    DispatchQueue.global().async { completion(.success(AdapterLoadedAd(ad: InstantAd()))) }
    return .none
  }
}

private final class InstantAd: AdapterAd {
  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    DispatchQueue.global().async {
      signals.send(.displayed)
      signals.send(.rewarded(nil))
      signals.send(.dismissed)
    }
  }

  func discard() {}
}

/// CPU time from the system clocks, in nanoseconds.
private enum CPUClock {
  static func thread() -> UInt64 { read(CLOCK_THREAD_CPUTIME_ID) }
  static func process() -> UInt64 { read(CLOCK_PROCESS_CPUTIME_ID) }

  private static func read(_ clock: clockid_t) -> UInt64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}

/// Median, 99th percentile and maximum of samples in microseconds.
private struct Percentiles {
  let median: Double
  let p99: Double
  let max: Double

  init(_ samples: [Double]) {
    let sorted = samples.sorted()
    func at(_ fraction: Double) -> Double {
      guard !sorted.isEmpty else { return 0 }
      let index = Swift.min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
      return (sorted[index] * 10).rounded() / 10
    }
    median = at(0.5)
    p99 = at(0.99)
    max = at(1)
  }

  func text(_ figure: KeyPath<Percentiles, Double>) -> String {
    String(format: "%7.1f µs", self[keyPath: figure])
  }
}
