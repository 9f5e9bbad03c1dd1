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

  /// Keeps only the elements `isIncluded` accepts, calling `removed` on the others, and restores
  /// the heap order in O(n).
  mutating func removeAll(where shouldRemove: (Element) -> Bool, removed: (Element) -> Void) {
    var kept: [Element] = []
    kept.reserveCapacity(storage.count)
    for element in storage {
      if shouldRemove(element) { removed(element) } else { kept.append(element) }
    }
    storage = kept
    var index = storage.count / 2 - 1
    while index >= 0 {
      siftDown(from: index)
      index -= 1
    }
  }

  @discardableResult
  mutating func removeFirst() -> Element? {
    guard !storage.isEmpty else { return nil }
    storage.swapAt(0, storage.count - 1)
    let first = storage.removeLast()
    siftDown(from: 0)
    return first
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
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
  }
}
