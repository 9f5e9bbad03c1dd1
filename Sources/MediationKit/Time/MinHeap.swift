/// A binary min-heap.
struct MinHeap<Element: Comparable> {
  private var storage: [Element] = []

  var count: Int { storage.count }
  var isEmpty: Bool { storage.isEmpty }
  func peek() -> Element? { storage.first }

  mutating func insert(_ element: Element) {
    storage.append(element)
    var child = storage.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard storage[child] < storage[parent] else { break }
      storage.swapAt(child, parent)
      child = parent
    }
  }

  @discardableResult
  mutating func removeFirst() -> Element? {
    guard !storage.isEmpty else { return nil }
    storage.swapAt(0, storage.count - 1)
    let first = storage.removeLast()
    var parent = 0
    let count = storage.count
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < count, storage[left] < storage[smallest] { smallest = left }
      if right < count, storage[right] < storage[smallest] { smallest = right }
      if smallest == parent { break }
      storage.swapAt(parent, smallest)
      parent = smallest
    }
    return first
  }
}
