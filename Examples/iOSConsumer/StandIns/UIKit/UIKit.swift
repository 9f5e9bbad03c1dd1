// A stand-in for Apple's UIKit, for type-checking on Linux only: it declares exactly the symbols
// MediationKitUI and the samples use, with the isolation the iOS SDK gives them (every class
// `@MainActor`, subclassing `NSObject`). It does nothing: an app links the real UIKit, and these
// bodies are never run — the package only builds.
@_exported import Foundation

@MainActor
open class UIResponder: NSObject {
  nonisolated public override init() { super.init() }
}

@MainActor
open class UIViewController: UIResponder {
  public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { super.init() }
  public required init?(coder: NSCoder) { super.init() }
  open func viewDidLoad() {}
  open var presentedViewController: UIViewController? { standIn() }
  open var isBeingDismissed: Bool { standIn() }
  open var title: String? {
    get { standIn() }
    set { standIn() }
  }
  open var view: UIView! {
    get { standIn() }
    set { standIn() }
  }
  @available(tvOS, unavailable)
  open var popoverPresentationController: UIPopoverPresentationController? { standIn() }
  open func present(
    _ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil
  ) {}
}

@MainActor
open class UIView: UIResponder {
  open var bounds: CGRect {
    get { standIn() }
    set { standIn() }
  }
}

@MainActor
open class UIPresentationController: NSObject {}

@available(tvOS, unavailable)
@MainActor
open class UIPopoverPresentationController: UIPresentationController {
  open var sourceView: UIView? {
    get { standIn() }
    set { standIn() }
  }
  open var sourceRect: CGRect {
    get { standIn() }
    set { standIn() }
  }
}

@MainActor
open class UIActivity: NSObject {}

@available(tvOS, unavailable)
@MainActor
open class UIActivityViewController: UIViewController {
  public init(activityItems: [Any], applicationActivities: [UIActivity]?) {
    super.init(nibName: nil, bundle: nil)
  }
  public required init?(coder: NSCoder) { super.init(nibName: nil, bundle: nil) }
}

@MainActor
open class UIWindow: UIView {
  open var rootViewController: UIViewController? {
    get { standIn() }
    set { standIn() }
  }
}

@MainActor
open class UIScene: UIResponder {
  public enum ActivationState: Int, Sendable {
    case unattached = -1
    case foregroundActive = 0
    case foregroundInactive = 1
    case background = 2
  }
  open var activationState: UIScene.ActivationState { standIn() }
}

@MainActor
open class UIWindowScene: UIScene {
  open var keyWindow: UIWindow? { standIn() }
}

@MainActor
open class UIApplication: UIResponder {
  open class var shared: UIApplication { standIn() }
  open var connectedScenes: Set<UIScene> { standIn() }
}

/// What every stand-in body does if it were ever run.
func standIn() -> Never { fatalError("UIKit stand-in: type-checking only, never run") }
