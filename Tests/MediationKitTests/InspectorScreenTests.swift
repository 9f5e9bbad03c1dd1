import Foundation
import MediationKit
import MediationKitTesting
import Testing

/// What `MediationKitUI`'s inspector screen draws (its sections and rows, decided in the core so
/// they are tested on every platform) and the recording file its share button offers.
@Suite("Inspector screen")
struct InspectorScreenTests {
  static let auction = AdInfo(
    zoneID: "z", network: "c", placementID: "c1", ecpm: 7,
    responses: [
      AdInfo.NetworkResponse(
        of: "a", placementID: "a1", priority: 0, ecpm: 9, state: .failed, latency: .seconds(1),
        error: "no_fill (204): no fill"),
      AdInfo.NetworkResponse(
        of: "b", placementID: "b1", priority: 1, ecpm: 8, state: .timedOut, latency: .seconds(2),
        error: "no answer within 2 s"),
      AdInfo.NetworkResponse(
        of: "c", placementID: "c1", priority: 2, ecpm: 7, state: .loaded, latency: .milliseconds(500)),
      AdInfo.NetworkResponse(of: "d", placementID: "d1", priority: 3, ecpm: 6, state: .notAttempted),
    ], latency: .milliseconds(3_500), auctionID: 4)

  static func inspection() -> Mediator.Inspection {
    var zone = Mediator.Inspection.Zone(
      id: "z", isConfigured: true, configurationVersion: "v7", experimentArms: ["floors": "high"],
      readyAds: [auction], isLoading: true)
    zone.auctions = [
      Mediator.Inspection.Auction(
        time: .seconds(2), outcome: .failure(MediationError(.noFill, "no fill from 1 of 1 line items")),
        duration: .seconds(2)),
      Mediator.Inspection.Auction(time: .milliseconds(13_500), outcome: .success(auction), duration: nil),
    ]
    zone.events = [
      Mediator.ZoneEvent(time: .seconds(10), zoneID: "z", network: nil, event: .loading),
      Mediator.ZoneEvent(time: .milliseconds(13_500), zoneID: "z", network: "c", event: .ready(auction)),
    ]
    var privacy = PrivacySettings(hasUserConsent: true, doNotSell: false)
    privacy.iab.usPrivacyString = "1YNN"
    return Mediator.Inspection(time: .seconds(20), adapters: [], privacy: privacy, zones: [zone])
  }

  @Test func eachAuctionRowListsEveryLineItemsFateAndLatency() throws {
    let sections = InspectionText.sections(of: Self.inspection())
    #expect(
      sections.map(\.title) == [
        "Adapters", "Privacy signals", "Zone z", "Zone z: last auctions, newest first",
        "Zone z: recent events, newest first",
      ])
    let auctions = sections[3].rows
    #expect(
      auctions.map(\.title) == [
        "13.500 s  auction 4: ready, c c1 at eCPM 7.00 (publisher_defined)",
        "2.000 s  failed: no_fill in 2.000 s",
      ])
    #expect(
      auctions[0].detail.split(separator: "\n") == [
        "a a1 (priority 0, eCPM 9.00): failed in 1.000 s: no_fill (204): no fill",
        "b b1 (priority 1, eCPM 8.00): timed_out in 2.000 s: no answer within 2 s",
        "c c1 (priority 2, eCPM 7.00): loaded in 0.500 s",
        "d d1 (priority 3, eCPM 6.00): not_attempted",
      ])
    #expect(auctions[1].detail == "no fill from 1 of 1 line items")
  }

  @Test func theZoneThePrivacySignalsAndTheEvents() {
    let sections = InspectionText.sections(of: Self.inspection())
    #expect(sections[0].rows.map(\.title) == ["No adapter registered"])
    let privacy = Dictionary(uniqueKeysWithValues: sections[1].rows.map { ($0.title, $0.detail) })
    #expect(privacy["Every network is given these same signals"] != nil)
    #expect(privacy["GDPR consent (hasUserConsent)"] == "yes")
    #expect(privacy["Do not sell (CCPA)"] == "no")
    #expect(privacy["US Privacy string"] == "1YNN")
    #expect(privacy["TCF v2 string"] == "none, GDPR applies: not known")
    let zone = sections[2].rows
    #expect(
      zone.map(\.title) == [
        "Configuration", "Experiment arms", "Queue", "Ready: c c1 at eCPM 7.00 (publisher_defined)",
      ])
    #expect(zone.map(\.detail).prefix(3) == ["version v7", "floors: high", "1 ready ad, loading"])
    #expect(sections[4].rows.map(\.title) == ["13.500 s  ready · c", "10.000 s  loading"])
  }

  @Test func anAdapterRowHasItsVersionsCompatibilityAndStart() throws {
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 9)])], scripts: ["a": ["a1": [.never]]])
    harness.settle(.seconds(1))
    let rows = InspectionText.sections(of: harness.mediator.inspect())[0].rows
    #expect(rows.map(\.title) == ["Scripted a (a)"])
    #expect(
      rows.first?.detail.split(separator: "\n").prefix(3) == [
        "adapter 1.0.0, SDK 1.0.0-scripted, adapter API \(AdapterCompatibility.coreAPIVersion)",
        "supports SDK >= 1.0.0, < 2.0.0", "compatible",
      ])
    #expect(rows.first?.detail.split(separator: "\n").last?.hasPrefix("start: ready (at_launch)") == true)
  }

  @Test func theShareButtonsFileIsTheRecording() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "inspector-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let recording = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)])], scripts: ["a": ["a1": [.fill(after: .seconds(1))]]],
      options: MediatorOptions(flightRecorder: MediatorOptions.FlightRecorder(isEnabled: true)))
    try recording.mediator.rewardedAd(zone: "z").load()
    recording.settle()
    let export = RecordingExport.write(
      recording.mediator.exportRecording(), to: directory, now: Date(timeIntervalSince1970: 1_700_000_000))
    let file = try #require(export.file)
    #expect(file.lastPathComponent == "mediationkit-recording-1700000000.jsonl")
    let written = try Data(contentsOf: file)
    #expect(try FlightRecording(jsonLines: written).zoneIDs == ["z"])
    #expect(export.note.hasPrefix("1 zone, "))

    let quiet = try Harness(zones: [zone([item("a", "a1", ecpm: 9)])], scripts: ["a": ["a1": [.never]]])
    let empty = RecordingExport.write(quiet.mediator.exportRecording(), to: directory)
    #expect(empty.file != nil)
    #expect(empty.note.hasPrefix("no zone recorded (MediatorOptions.flightRecorder is off)"))

    let unwritable = RecordingExport.write(
      quiet.mediator.exportRecording(), to: directory.appendingPathComponent("missing/deeper"))
    #expect(unwritable.file == nil && unwritable.note.contains("could not be written"))
  }
}
