import MediationKit
import MediationKitUI
import SwiftUI
import UIKit

/// A debug build's mediator, made with an inspector so that the inspector screen holds the
/// session's auctions and events when a developer opens it.
@MainActor
final class DebugAds {
  let mediator: Mediator
  let inspector: MediationInspector

  init(config: MediationConfig, registry: AdapterRegistry) throws {
    var options = MediatorOptions()
    options.flightRecorder.isEnabled = true  // the screen's share button exports the recording
    options.logging = .osLog  // Console.app: subsystem com.mediationkit, zone.<id>, network.<id>
    mediator = try Mediator(
      config: config, registry: registry, scheduler: DispatchScheduler.main, options: options)
    inspector = MediationInspector(mediator: mediator)
  }
}

/// UIKit: a debug menu that presents the inspector screen.
final class DebugMenuViewController: UIViewController {
  private let inspector: MediationInspector

  init(inspector: MediationInspector) {
    self.inspector = inspector
    super.init(nibName: nil, bundle: nil)
  }

  required init?(coder: NSCoder) { fatalError("DebugMenuViewController is made in code") }

  func adMediationTapped() {
    present(MediationInspectorViewController(inspector: inspector), animated: true)
  }
}

/// SwiftUI: the same screen in a sheet.
struct DebugMenu: View {
  let inspector: MediationInspector
  @State private var isInspecting = false

  var body: some View {
    Button("Ad mediation") { isInspecting = true }
      .sheet(isPresented: $isInspecting) { MediationInspectorView(inspector: inspector) }
  }
}
