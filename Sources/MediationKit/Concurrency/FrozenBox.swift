/// An immutable value on the heap: the storage of a struct whose copies should cost one retain
/// instead of one per field (``Mediator/ZoneEvent``, ``AdapterLoadRequest``).
///
/// Never mutated: a struct changes a field by putting a changed copy in a new box
/// (``changing(_:)``), so copies never see each other's changes.
@usableFromInline
final class FrozenBox<Value: Sendable>: Sendable {
  @usableFromInline let value: Value

  @usableFromInline init(_ value: Value) { self.value = value }

  /// A new box holding this one's value after `change`.
  @usableFromInline func changing(_ change: (inout Value) -> Void) -> FrozenBox {
    var value = self.value
    change(&value)
    return FrozenBox(value)
  }
}
