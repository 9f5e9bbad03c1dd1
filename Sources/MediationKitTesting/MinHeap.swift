/// A binary min-heap.
struct MinHeap<Element: Comparable> {
  private var storage: [Element] = []

  var count: Int { storage.count }
  var isEmpty: Bool { storage.isEmpty }
  func peek() -> Element? { storage.first }

  mutating func insert(_ element: Element) {
    storage.append(element)
    siftUp(element, from: storage.count - 1)
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
    guard let first = storage.first else { return nil }
    let last = storage.removeLast()
    guard !storage.isEmpty else { return first }
    // The last element takes the hole at the top, then moves down to its place.
    storage[0] = last
    siftDown(from: 0)
    return first
  }

  /// Moves `element`, at `start`, up to its place through a hole: parents move down one step
  /// each, the element is written once. The buffer pointer skips per-step bounds and uniqueness
  /// checks (the indices are in range).
  private mutating func siftUp(_ element: Element, from start: Int) {
    storage.withUnsafeMutableBufferPointer { buffer in
      var child = start
      while child > 0 {
        let parent = (child - 1) / 2
        guard element < buffer[parent] else { break }
        buffer[child] = buffer[parent]
        child = parent
      }
      buffer[child] = element
    }
  }

  /// Moves the element at `start` down to its place, through a hole (children move up one step
  /// each, the element is written once).
  private mutating func siftDown(from start: Int) {
    storage.withUnsafeMutableBufferPointer { buffer in
      let count = buffer.count
      guard start < count else { return }
      let element = buffer[start]
      var parent = start
      while true {
        let left = 2 * parent + 1
        guard left < count else { break }
        let right = left + 1
        var smallest = left
        if right < count, buffer[right] < buffer[left] { smallest = right }
        guard buffer[smallest] < element else { break }
        buffer[parent] = buffer[smallest]
        parent = smallest
      }
      buffer[parent] = element
    }
  }
}
