#if canImport(SwiftUI) && canImport(UIKit)
  import MediationKit
  import SwiftUI
  import UIKit

  /// The ``MediationInspectorView`` debug screen for UIKit: push it or present it from a debug
  /// menu.
  ///
  /// ```swift
  /// navigationController?.pushViewController(
  ///   MediationInspectorViewController(inspector: inspector), animated: true)
  /// ```
  public final class MediationInspectorViewController: UIHostingController<MediationInspectorView> {
    /// A screen over `inspector`'s mediator and history, titled "Ad mediation".
    public init(inspector: MediationInspector) {
      super.init(rootView: MediationInspectorView(inspector: inspector))
      title = "Ad mediation"
    }

    /// Not supported: the inspector screen is made in code, with its inspector.
    @available(*, unavailable)
    public required init?(coder: NSCoder) { fatalError("MediationInspectorViewController is made in code") }
  }
#endif
