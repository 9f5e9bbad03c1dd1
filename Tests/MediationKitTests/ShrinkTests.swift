import MediationKit
import MediationKitTesting
import Testing

@Suite("Shrink")
struct ShrinkTests {
  /// Fails when a 3 comes somewhere before a 7.
  static func threeBeforeSeven(_ values: [Int]) -> Bool {
    guard let three = values.firstIndex(of: 3) else { return false }
    return values[three...].contains(7)
  }

  @Test func shrinksAKnownFailureToItsMinimalSequence() {
    var random = SeededRandom(seed: 42)
    for _ in 0..<50 {
      var values = (0..<200).map { _ in Int(random.next() % 10) }
      values.insert(3, at: Int(random.next() % 100))
      values.append(7)
      #expect(Self.threeBeforeSeven(values))
      var calls = 0
      let minimal = Shrink.sequence(values) { candidate in
        calls += 1
        return Self.threeBeforeSeven(candidate)
      }
      #expect(minimal == [3, 7])
      #expect(calls < 1_000)
    }
  }

  @Test func resultIsOneMinimal() {
    // Fails while the sum is at least 20: every single removal from the result must pass.
    var random = SeededRandom(seed: 7)
    let values = (0..<64).map { _ in Int(random.next() % 9) + 1 }
    let fails: ([Int]) -> Bool = { $0.reduce(0, +) >= 20 }
    let minimal = Shrink.sequence(values, while: fails)
    #expect(fails(minimal))
    for index in minimal.indices {
      var smaller = minimal
      smaller.remove(at: index)
      #expect(!fails(smaller), "removing #\(index) of \(minimal) still fails")
    }
  }

  @Test func simplifiesElementsToo() {
    // Fails when some element is at least 5; simplifying halves an element.
    let minimal = Shrink.sequence([1, 90, 2, 64, 3], simpler: { $0 > 0 ? [$0 / 2] : [] }) { values in
      values.contains { $0 >= 5 }
    }
    #expect(minimal.count == 1)
    #expect(minimal.allSatisfy { $0 >= 5 && $0 / 2 < 5 })
  }

  @Test func passingInputIsReturnedUnchanged() {
    #expect(Shrink.sequence([1, 2, 3]) { _ in false } == [1, 2, 3])
    #expect(Shrink.sequence([1, 2, 3]) { _ in true } == [])
  }

  @Test func respectsTheAttemptBudget() {
    var calls = 0
    _ = Shrink.sequence(Array(0..<1_000), maxAttempts: 25) { _ in
      calls += 1
      return true
    }
    #expect(calls <= 25)
  }
}
