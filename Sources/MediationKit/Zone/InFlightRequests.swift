/// The open network requests of one load, by auction entry: a handful at most, so a small array.
struct InFlightRequests {
  private struct Request {
    let entry: Int
    let handle: Cancellable
  }

  private var requests: [Request] = []

  /// The entries with an open request.
  var entries: [Int] { requests.map(\.entry) }

  /// Every open request's handle.
  var handles: [Cancellable] { requests.map(\.handle) }

  /// Records `entry`'s open request, replacing the one it had (there is at most one per entry).
  mutating func insert(_ handle: Cancellable, for entry: Int) {
    // Not `removeAll(where:)`: it rebuilds the array's tail even when nothing matches.
    if let index = requests.firstIndex(where: { $0.entry == entry }) { requests.remove(at: index) }
    requests.append(Request(entry: entry, handle: handle))
  }

  /// Removes `entry`'s request and returns its handle.
  mutating func remove(_ entry: Int) -> Cancellable? {
    guard let index = requests.firstIndex(where: { $0.entry == entry }) else { return nil }
    return requests.remove(at: index).handle
  }

  /// Forgets every request, keeping the storage for the next load.
  mutating func removeAll() { requests.removeAll(keepingCapacity: true) }

  /// Moves the list out, leaving an empty one.
  mutating func take() -> InFlightRequests {
    defer { requests = [] }
    return self
  }
}
