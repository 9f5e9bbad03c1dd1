import Dispatch
@_spi(SharedState) import MediationKit
import MediationKitTesting
import Testing

/// The operations `AtomicInt` and the Apple-platform stand-in `LockedAtomic<Int>` share, so one
/// test body checks both (on Linux `AtomicInt` is `Synchronization.Atomic`, elsewhere the lock box).
private protocol IntCell: ~Copyable, Sendable {
  init(_ value: Int)
  func load(ordering: AtomicLoadOrder) -> Int
  func store(_ value: Int, ordering: AtomicStoreOrder)
  func exchange(_ value: Int, ordering: AtomicUpdateOrder) -> Int
  func compareExchange(expected: Int, desired: Int, ordering: AtomicUpdateOrder) -> (
    exchanged: Bool, original: Int
  )
  @discardableResult func add(_ operand: Int, ordering: AtomicUpdateOrder) -> (oldValue: Int, newValue: Int)
  func subtract(_ operand: Int, ordering: AtomicUpdateOrder) -> (oldValue: Int, newValue: Int)
}

private protocol BoolCell: ~Copyable, Sendable {
  init(_ value: Bool)
  func load(ordering: AtomicLoadOrder) -> Bool
  func store(_ value: Bool, ordering: AtomicStoreOrder)
  func exchange(_ value: Bool, ordering: AtomicUpdateOrder) -> Bool
}

#if os(Linux)
  extension AtomicInt: IntCell {}
  extension AtomicFlag: BoolCell {}
#endif
extension LockedAtomic: IntCell where Value == Int {}
extension LockedAtomic: BoolCell where Value == Bool {}

@Suite("AtomicInt, AtomicFlag and their lock-based stand-in")
struct AtomicsTests {
  @Test func integerCellsAddSubtractExchangeAndCompareLikeAtomic() {
    checkInteger(AtomicInt.self)
    checkInteger(LockedAtomic<Int>.self)
  }

  @Test func integerCellsCountEveryIncrementFromManyThreads() {
    countConcurrently(AtomicInt.self)
    countConcurrently(LockedAtomic<Int>.self)
  }

  @Test func flagsExchangeAndStoreLikeAtomic() {
    checkFlag(AtomicFlag.self)
    checkFlag(LockedAtomic<Bool>.self)
  }

  private func checkInteger<Cell: IntCell & ~Copyable>(_: Cell.Type) {
    let cell = Cell(5)
    #expect(cell.load(ordering: .relaxed) == 5)
    #expect(cell.add(3, ordering: .relaxed) == (oldValue: 5, newValue: 8))
    #expect(cell.subtract(10, ordering: .acquiringAndReleasing) == (oldValue: 8, newValue: -2))
    #expect(cell.exchange(7, ordering: .acquiring) == -2)
    #expect(
      cell.compareExchange(expected: 6, desired: 1, ordering: .relaxed) == (exchanged: false, original: 7))
    #expect(cell.load(ordering: .sequentiallyConsistent) == 7)
    #expect(
      cell.compareExchange(expected: 7, desired: 1, ordering: .releasing) == (exchanged: true, original: 7))
    cell.store(-1, ordering: .releasing)
    #expect(cell.load(ordering: .acquiring) == -1)
  }

  private func countConcurrently<Cell: IntCell & ~Copyable>(_: Cell.Type) {
    let cell = Cell(0)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<10_000 { cell.add(1, ordering: .relaxed) }
    }
    #expect(cell.load(ordering: .relaxed) == 40_000)
  }

  private func checkFlag<Cell: BoolCell & ~Copyable>(_: Cell.Type) {
    let flag = Cell(false)
    #expect(flag.exchange(true, ordering: .acquiringAndReleasing) == false)
    #expect(flag.exchange(true, ordering: .acquiringAndReleasing) == true)
    flag.store(false, ordering: .releasing)
    #expect(flag.load(ordering: .acquiring) == false)
  }
}

@Suite("VirtualScheduler's nanosecond conversion")
struct NanosecondConversionTests {
  /// Apple platforms convert through `Duration.components` (no `Int128` below iOS 18); Linux
  /// divides the 128-bit attosecond count. Both round toward zero, for either sign.
  @Test(
    arguments: [
      (Duration.zero, 0), (.nanoseconds(1), 1), (.nanoseconds(-1), -1),
      (.seconds(3) + .nanoseconds(999_999_999), 3_999_999_999),
      (.seconds(-3) - .nanoseconds(999_999_999), -3_999_999_999),
      (.nanoseconds(Int64.max), Int64.max), (.nanoseconds(Int64.min), Int64.min),
      (.seconds(1) / 3, 333_333_333), (.seconds(-1) / 3, -333_333_333), (.milliseconds(1) / 7, 142_857),
      (.seconds(86_400 * 365 * 200), 6_307_200_000_000_000_000),
    ] as [(Duration, Int64)])
  func bothConversionsRoundTowardZero(duration: Duration, nanoseconds: Int64) {
    #expect(VirtualScheduler.nanosecondsFromComponents(duration) == nanoseconds)
    #expect(VirtualScheduler.nanoseconds(duration) == nanoseconds)
    let whole = Duration.nanoseconds(nanoseconds)
    #expect(VirtualScheduler.duration(nanoseconds: nanoseconds) == whole)
  }
}

@Suite("Duration's seconds and milliseconds")
struct DurationPartsTests {
  /// `secondsAndAttoseconds` (on Linux from the attosecond count) gives exactly
  /// `Duration.components`, for either sign and sub-nanosecond parts.
  @Test(
    arguments: [
      Duration.zero, .nanoseconds(1), .nanoseconds(-1), .milliseconds(1500), .milliseconds(-1500),
      .seconds(1) / 3, .seconds(-1) / 3, .seconds(Int64.max), .seconds(Int64.min),
      .seconds(86_400 * 365 * 200) + .nanoseconds(7),
    ])
  func partsAreTheComponents(duration: Duration) {
    #expect(duration.secondsAndAttoseconds == duration.components)
  }

  /// Over seeded random attosecond counts, the parts and the derived `seconds` and `milliseconds`
  /// match those computed from `components`.
  @Test func randomDurationsMatchTheComponents() {
    var random = SeededRandom(seed: 42)
    for _ in 0..<10_000 {
      let seconds = Int64(bitPattern: random.next()) >> Int64(random.next() % 64)
      let attoseconds = Int64(random.next() % 1_000_000_000_000_000_000)
      let duration = Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
      let (wholeSeconds, fraction) = duration.components
      #expect(duration.secondsAndAttoseconds == duration.components)
      #expect(duration.seconds == Double(wholeSeconds) + Double(fraction) / 1e18)
      if abs(wholeSeconds) < Int64.max / 1000 {
        #expect(duration.milliseconds == wholeSeconds * 1000 + fraction / 1_000_000_000_000_000)
      }
    }
  }
}
