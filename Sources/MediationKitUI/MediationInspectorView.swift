#if canImport(SwiftUI) && canImport(UIKit)
  import Foundation
  import MediationKit
  import SwiftUI
  import UIKit

  /// A debug screen over a `MediationInspector`: each adapter's versions, compatibility and
  /// start-up; the privacy signals every network is given; per zone the configuration version and
  /// experiment arms, the queue of ready ads, the last auctions with every line item's fate and
  /// latency, and the recent events; and a button that shares the flight recording as a file.
  ///
  /// It refreshes as the mediator publishes events. Open it from a debug menu (from UIKit,
  /// ``MediationInspectorViewController`` presents it):
  ///
  /// ```swift
  /// NavigationLink("Ad mediation") { MediationInspectorView(inspector: inspector) }
  /// ```
  ///
  /// The share button (not on tvOS, which has no share sheet) exports
  /// `mediator.exportRecording().jsonLines` off the main thread into a `.jsonl` file in the
  /// temporary directory and offers it in the share sheet; the file holds the zones that record
  /// (`MediatorOptions.flightRecorder`), and says so when none does.
  public struct MediationInspectorView: View {
    private let inspector: MediationInspector
    @State private var inspection: Mediator.Inspection
    @State private var isExporting = false
    @State private var exportNote: String?

    /// A screen over `inspector`'s mediator and history.
    public init(inspector: MediationInspector) {
      self.inspector = inspector
      _inspection = State(initialValue: inspector.inspect())
    }

    public var body: some View {
      List {
        Section("Flight recording") {
          #if !os(tvOS)
            Button(isExporting ? "Exporting the flight recording…" : "Share the flight recording") { share() }
              .disabled(isExporting)
          #endif
          InspectorRow(
            title: "Taken at \(InspectionText.seconds(inspection.time)) on the mediator's clock",
            detail: exportNote ?? "")
        }
        ForEach(Array(InspectionText.sections(of: inspection).enumerated()), id: \.offset) { _, section in
          Section(section.title) {
            ForEach(Array(section.rows.enumerated()), id: \.offset) { _, row in
              InspectorRow(title: row.title, detail: row.detail)
            }
          }
        }
      }
      .task {
        for await _ in inspector.updates() { inspection = inspector.inspect() }
      }
    }

    #if !os(tvOS)
      /// Exports the recording off the main thread, writes it to a temporary file and offers the
      /// file in the share sheet, from the view controller on top of the key window.
      private func share() {
        isExporting = true
        let mediator = inspector.mediator
        Task {
          let export = await Task.detached(priority: .userInitiated) {
            RecordingExport.write(mediator.exportRecording())
          }.value
          isExporting = false
          exportNote = export.note
          guard let file = export.file else { return }
          guard let presenter = UIApplication.shared.adPresentingViewController else {
            exportNote = "\(export.note); no window to present the share sheet from"
            return
          }
          let sheet = UIActivityViewController(activityItems: [file], applicationActivities: nil)
          if let popover = sheet.popoverPresentationController {
            // On iPad the sheet is a popover, which needs an anchor: the middle of the screen.
            let bounds = presenter.view.bounds
            popover.sourceView = presenter.view
            popover.sourceRect = CGRect(x: bounds.midX, y: bounds.midY, width: 0, height: 0)
          }
          presenter.present(sheet, animated: true)
        }
      }
    #endif
  }

  /// A row: a title and, below it, a detail of one or more lines.
  struct InspectorRow: View {
    let title: String
    let detail: String

    var body: some View {
      VStack(alignment: .leading, spacing: 2) {
        Text(verbatim: title)
        if !detail.isEmpty {
          Text(verbatim: detail).font(.caption)
        }
      }
    }
  }
#endif
