// A stand-in for Apple's SwiftUI, for type-checking on Linux only: it declares exactly the symbols
// MediationKitUI and the samples use, with the isolation the iOS SDK gives them (`View` and
// `ViewModifier` are `@MainActor @preconcurrency`, their modifiers `nonisolated`). It does
// nothing: an app links the real SwiftUI, and these bodies are never run — the package only
// builds.
import UIKit

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
  public static func buildBlock() -> EmptyView { EmptyView() }
  public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
  public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<
    (repeat each Content)
  > { TupleView((repeat each content)) }
  public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
}

public struct EmptyView: View {
  nonisolated public init() {}
  public var body: Never { standIn() }
}

public struct TupleView<T>: View {
  nonisolated public init(_ value: T) {}
  public var body: Never { standIn() }
}

extension Optional: View where Wrapped: View {
  public var body: Never { standIn() }
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

  nonisolated public func sheet<Content: View>(
    isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
  ) -> some View {
    StandInView()
  }

  nonisolated public func task(
    priority: TaskPriority = .userInitiated,
    @_inheritActorContext _ action: @escaping @Sendable () async -> Void
  ) -> some View {
    StandInView()
  }
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
  public init(initialValue value: Value) {}

  public var wrappedValue: Value {
    get { standIn() }
    nonmutating set { standIn() }
  }

  public var projectedValue: Binding<Value> { standIn() }
}

extension State: Sendable where Value: Sendable {}

public struct Text: View, Equatable, Sendable {
  nonisolated public init<S: StringProtocol>(_ content: S) {}
  nonisolated public init(verbatim content: String) {}
  public var body: Never { standIn() }
  nonisolated public func font(_ font: Font?) -> Text { self }
}

public struct Font: Hashable, Sendable {
  public static let caption = Font()
}

@frozen public struct HorizontalAlignment: Equatable {
  public static let leading = HorizontalAlignment()
  public static let center = HorizontalAlignment()
}

@MainActor @preconcurrency
public struct VStack<Content: View>: View {
  nonisolated public init(
    alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
  ) {}
  public var body: Never { standIn() }
}

@MainActor @preconcurrency
public struct List<SelectionValue: Hashable, Content: View>: View {
  public var body: Never { standIn() }
}

extension List where SelectionValue == Never {
  public init(@ViewBuilder content: () -> Content) {}
}

public struct Section<Parent, Content, Footer> {}

extension Section: View where Parent: View, Content: View, Footer: View {
  public var body: Never { standIn() }
}

extension Section where Parent == Text, Content: View, Footer == EmptyView {
  public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
}

public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {}

extension ForEach: View where Content: View {
  public var body: Never { standIn() }
}

extension ForEach where Content: View {
  public init(
    _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content
  ) {}
}

@MainActor @preconcurrency
public struct Button<Label: View>: View {
  public var body: Never { standIn() }
}

extension Button where Label == Text {
  nonisolated public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {}
}

/// Hosts a SwiftUI view in UIKit (declared by SwiftUI where UIKit exists).
@MainActor @preconcurrency
open class UIHostingController<Content: View>: UIViewController {
  public init(rootView: Content) { super.init(nibName: nil, bundle: nil) }
  public required init?(coder aDecoder: NSCoder) { super.init(nibName: nil, bundle: nil) }
  public var rootView: Content {
    get { standIn() }
    set { standIn() }
  }
}

/// What every stand-in body does if it were ever run.
func standIn() -> Never { fatalError("SwiftUI stand-in: type-checking only, never run") }
