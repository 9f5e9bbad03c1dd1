import Foundation
import MediationKit
import MediationKitTesting

/// `mediate bench-apply`: the wall-clock cost of ``Mediator/apply(_:)`` on a running mediator with
/// 100 zones of 20 line items each, every zone holding a ready ad, over the built-in simulated
/// networks on virtual time. Each apply alternates between two configurations that change every
/// zone (prices, one line item switched off, the version), so every zone builds its new plan and
/// checks its ready ad. With `--experiments` every zone also runs a two-arm A/B test and the
/// mediator has a user id: each apply resolves the user's arms, and changes of user id (which
/// resolve them again) are timed too.
struct BenchApplyCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  static let zones = 100
  static let lineItems = 20

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.benchApply)
    let applies = try context.wholeNumber(.cycles, default: 200, range: 1...100_000, .benchApply)
    let networks = context.registry.networkIDs
    let scheduler = VirtualScheduler()
    let experiments = context.arguments.has(.experiments)
    let first = Self.config(networks: networks, variant: 0, experiments: experiments)
    let mediator: Mediator
    do {
      mediator = try Mediator(config: first, registry: context.registry, scheduler: scheduler)
      if experiments { try mediator.setUserID("bench-user-0") }
    } catch {
      throw .data("could not make the mediator: \(error)")
    }
    let ads = first.zones.compactMap { try? mediator.rewardedAd(zone: $0.id) }
    for ad in ads { ad.load() }
    scheduler.advance(by: .seconds(120))
    let ready = ads.filter(\.isReady).count
    let variants = [Self.config(networks: networks, variant: 1, experiments: experiments), first]
    // Wall time, and the thread's CPU time: on a shared machine the wall time also counts the
    // time the thread waited for a core.
    var times: [Double] = []
    var cpuTimes: [Double] = []
    times.reserveCapacity(applies)
    cpuTimes.reserveCapacity(applies)
    for index in 0..<applies {
      let config = variants[index % 2]
      let cpuStart = Self.threadCPUNanoseconds()
      let start = DispatchTime.now().uptimeNanoseconds
      do {
        try mediator.apply(config)
      } catch {
        throw .data("apply refused the benchmark's configuration: \(error)")
      }
      times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
      cpuTimes.append(Double(Self.threadCPUNanoseconds() - cpuStart) / 1e6)
    }
    scheduler.advance(by: .seconds(1))
    // Each change of user id resolves every zone's arms again (users alternate, so most changes
    // move some zones to another arm).
    var userTimes: [Double] = []
    if experiments {
      for index in 0..<applies {
        let start = DispatchTime.now().uptimeNanoseconds
        try? mediator.setUserID("bench-user-\(index % 2 == 0 ? 1 : 0)")
        userTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
      }
      userTimes.sort()
    }
    let userMedian = userTimes.isEmpty ? nil : userTimes[userTimes.count / 2]
    times.sort()
    cpuTimes.sort()
    let median = times[times.count / 2]
    let p99 = times[min(times.count - 1, times.count * 99 / 100)]
    let worst = times[times.count - 1]
    let cpuMedian = cpuTimes[cpuTimes.count / 2]
    if context.json {
      context.output.out(
        JSONLine.encode(
          [
            "zones": Self.zones, "line_items_per_zone": Self.lineItems, "applies": applies,
            "zones_ready_before": ready, "median_ms": JSONLine.rounded(median, 3),
            "p99_ms": JSONLine.rounded(p99, 3), "max_ms": JSONLine.rounded(worst, 3),
            "cpu_median_ms": JSONLine.rounded(cpuMedian, 3),
          ].merging(
            userMedian.map { ["experiments": true, "set_user_median_ms": JSONLine.rounded($0, 3)] } ?? [:]
          ) {
            $1
          }))
    } else {
      context.output.out(
        """
        Mediator.apply, \(Self.zones) zones × \(Self.lineItems) line items, \(applies) applies \
        (\(ready) zones holding a ready ad)
          median   \(String(format: "%8.3f", median)) ms (thread CPU time \(String(format: "%.3f", cpuMedian)) ms)
          p99      \(String(format: "%8.3f", p99)) ms
          max      \(String(format: "%8.3f", worst)) ms
        """
          + (userMedian.map {
            "\n  setUserID median \(String(format: "%.3f", $0)) ms (every zone's arms resolved)"
          } ?? ""))
    }
    return ExitCode.success
  }

  /// The calling thread's CPU time.
  static func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// 100 zones of 20 line items over `networks`; `variant` shifts every price and switches a
  /// different line item off in each zone.
  static func config(networks: [NetworkID], variant: Int, experiments: Bool = false) -> MediationConfig {
    let zones = (0..<zones).map { zone in
      var config = ZoneConfig(
        id: "zone-\(zone)", reward: ZoneConfig.RewardConfig(type: "coins", amount: 10),
        lineItems: (0..<lineItems).map { index in
          ZoneConfig.LineItem(
            network: networks[index % networks.count], placementId: "z\(zone)-p\(index)",
            priority: index / 5, ecpm: Double(40 - index) + Double(variant) * 0.5, timeoutSeconds: 8,
            disabled: index == 10 + variant)
        },
        loadTimeoutSeconds: 30, adExpirySeconds: 3600, rewardGraceSeconds: 5, autoReload: false)
      if experiments {
        // The other arm: the same line items, their priorities reversed.
        let reversed = config.lineItems.map { item in
          var item = item
          item.priority = (lineItems - 1) / 5 - item.priority
          return item
        }
        config.experiments = [
          ZoneConfig.Experiment(
            id: "e",
            arms: [.init(id: "control", weight: 1), .init(id: "reversed", weight: 1, lineItems: reversed)])
        ]
      }
      return config
    }
    return MediationConfig(zones: zones, version: "bench-\(variant)")
  }
}
