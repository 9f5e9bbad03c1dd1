/// A binary min-heap ordered by a caller-supplied predicate.
struct MinHeap<Element> {
  private var storage: [Element] = []
  private let areInIncreasingOrder: (Element, Element) -> Bool

  init(areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
    self.areInIncreasingOrder = areInIncreasingOrder
  }

  var count: Int { storage.count }
  var isEmpty: Bool { storage.isEmpty }
  func peek() -> Element? { storage.first }

  mutating func insert(_ element: Element) {
    storage.append(element)
    var child = storage.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard areInIncreasingOrder(storage[child], storage[parent]) else { break }
      storage.swapAt(child, parent)
      child = parent
    }
  }

  mutating func removeFirst() -> Element? {
    guard !storage.isEmpty else { return nil }
    storage.swapAt(0, storage.count - 1)
    let first = storage.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < storage.count, areInIncreasingOrder(storage[left], storage[smallest]) { smallest = left }
      if right < storage.count, areInIncreasingOrder(storage[right], storage[smallest]) { smallest = right }
      if smallest == parent { break }
      storage.swapAt(parent, smallest)
      parent = smallest
    }
    return first
  }
}
