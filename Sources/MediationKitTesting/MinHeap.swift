/// An element of a ``MinHeap``, told its position each time it is placed, so that its owner can
/// remove it from the middle of the heap (``MinHeap/remove(at:)``).
protocol MinHeapElement: Comparable {
  /// The element now sits at `index` of the heap's storage.
  func placed(at index: Int)
}

/// A binary min-heap that tells each element where it sits.
struct MinHeap<Element: MinHeapElement> {
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
    for (index, element) in storage.enumerated() { element.placed(at: index) }
    var index = storage.count / 2 - 1
    while index >= 0 {
      siftDown(from: index)
      index -= 1
    }
  }

  @discardableResult
  mutating func removeFirst() -> Element? {
    storage.isEmpty ? nil : remove(at: 0)
  }

  /// Removes the element at `index` (as last told by ``MinHeapElement/placed(at:)``).
  @discardableResult
  mutating func remove(at index: Int) -> Element {
    let removed = storage[index]
    let last = storage.removeLast()
    guard index < storage.count else { return removed }
    // The last element takes the hole, then moves up or down to its place.
    storage[index] = last
    last.placed(at: index)
    if index > 0 && last < storage[(index - 1) / 2] {
      siftUp(last, from: index)
    } else {
      siftDown(from: index)
    }
    return removed
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
        buffer[child].placed(at: child)
        child = parent
      }
      buffer[child] = element
      element.placed(at: child)
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
        buffer[parent].placed(at: parent)
        parent = smallest
      }
      buffer[parent] = element
      element.placed(at: parent)
    }
  }
}
