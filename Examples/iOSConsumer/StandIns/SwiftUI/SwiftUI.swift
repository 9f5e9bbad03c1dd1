// A stand-in for Apple's SwiftUI, for type-checking on Linux only: it declares exactly the symbols
// MediationKitUI and the samples use, with the isolation the iOS SDK gives them (`View` and
// `ViewModifier` are `@MainActor @preconcurrency`, their modifiers `nonisolated`). It does
// nothing: an app links the real SwiftUI, and these bodies are never run — the package only
// builds.

@MainActor @preconcurrency
public protocol View {
  associatedtype Body: View
  @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

@MainActor @preconcurrency
public protocol ViewModifier {
  associatedtype Body: View
  typealias Content = _ViewModifier_Content<Self>
  @ViewBuilder @MainActor @preconcurrency func body(content: Self.Content) -> Self.Body
}

@resultBuilder
public enum ViewBuilder {
  public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

extension Never: View {
  public typealias Body = Never
  public var body: Never { standIn() }
}

/// The content a ``ViewModifier`` modifies.
public struct _ViewModifier_Content<Modifier: ViewModifier>: View {
  public var body: Never { standIn() }
}

public struct ModifiedContent<Content, Modifier> {
  public var content: Content
  public var modifier: Modifier

  nonisolated public init(content: Content, modifier: Modifier) {
    self.content = content
    self.modifier = modifier
  }
}

extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
  public var body: Never { standIn() }
}

extension View {
  nonisolated public func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> {
    ModifiedContent(content: self, modifier: modifier)
  }

  nonisolated public func onChange<V: Equatable>(
    of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
  ) -> some View {
    StandInView()
  }

  nonisolated public func disabled(_ disabled: Bool) -> some View { StandInView() }
}

/// What the stand-in modifiers return.
public struct StandInView: View {
  nonisolated init() {}
  public var body: Never { standIn() }
}

@propertyWrapper
@dynamicMemberLookup
public struct Binding<Value> {
  public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {}

  public var wrappedValue: Value {
    get { standIn() }
    nonmutating set { standIn() }
  }

  public var projectedValue: Binding<Value> { self }

  public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
    standIn()
  }
}

public protocol DynamicProperty {}

@propertyWrapper
public struct State<Value>: DynamicProperty {
  public init(wrappedValue value: Value) {}

  public var wrappedValue: Value {
    get { standIn() }
    nonmutating set { standIn() }
  }

  public var projectedValue: Binding<Value> { standIn() }
}

extension State: Sendable where Value: Sendable {}

public struct Text: View, Equatable, Sendable {
  nonisolated public init<S: StringProtocol>(_ content: S) {}
  public var body: Never { standIn() }
}

@MainActor @preconcurrency
public struct Button<Label: View>: View {
  public var body: Never { standIn() }
}

extension Button where Label == Text {
  nonisolated public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {}
}

/// What every stand-in body does if it were ever run.
func standIn() -> Never { fatalError("SwiftUI stand-in: type-checking only, never run") }
