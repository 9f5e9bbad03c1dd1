/// An inspection as the sections and rows of a debug screen: `MediationKitUI`'s
/// `MediationInspectorView` draws them as they are, so what it shows is decided (and tested)
/// here, where it compiles on every platform.
extension InspectionText {
  /// A titled group of rows.
  package struct Section: Sendable, Equatable {
    package var title: String
    package var rows: [Row]
  }

  /// One row: a title and a detail of one or more lines (empty for none).
  package struct Row: Sendable, Equatable {
    package var title: String
    package var detail: String

    package init(_ title: String, _ detail: String = "") {
      self.title = title
      self.detail = detail
    }
  }

  /// The adapters, the privacy signals, then per zone its state, its last auctions and its
  /// recent events (newest first).
  package static func sections(of inspection: Mediator.Inspection) -> [Section] {
    var sections = [
      Section(title: "Adapters", rows: inspection.adapters.map(row)),
      Section(title: "Privacy signals", rows: rows(of: inspection.privacy)),
    ]
    for zone in inspection.zones {
      let name = "Zone \(zone.id)" + (zone.isConfigured ? "" : " (not in the configuration)")
      sections.append(Section(title: name, rows: rows(of: zone)))
      sections.append(
        Section(title: "\(name): last auctions, newest first", rows: zone.auctions.reversed().map(row)))
      sections.append(
        Section(
          title: "\(name): recent events, newest first",
          rows: zone.events.reversed().map {
            Row("\(seconds($0.time))  \(title(of: $0))", detail(of: $0.event))
          }))
    }
    if inspection.adapters.isEmpty { sections[0].rows = [Row("No adapter registered")] }
    return sections
  }

  /// An adapter: its name and id; its versions, compatibility and start-up.
  static func row(_ adapter: Mediator.Inspection.Adapter) -> Row {
    let info = adapter.info
    var lines = [
      "adapter \(info.adapterVersion), SDK \(info.sdkVersion), adapter API \(info.adapterAPIVersion)",
      "supports SDK \(AdapterCompatibility.rangeText(info.supportedSDKVersions))",
      adapter.compatibilityProblem.map { "incompatible: \($0)" } ?? "compatible",
    ]
    if let status = adapter.status {
      var start = "start: \(status.state.rawValue) (\(status.start.rawValue))"
      if let latency = status.latency { start += " after \(seconds(latency))" }
      if !status.description.isEmpty { start += ": \(status.description)" }
      lines.append(start)
    }
    return Row("\(info.displayName) (\(info.id))", lines.joined(separator: "\n"))
  }

  /// The privacy signals: one set, which every network is given.
  static func rows(of privacy: PrivacySettings) -> [Row] {
    let iab = privacy.iab
    func flag(_ value: Bool?, unknown: String) -> String { value.map { $0 ? "yes" : "no" } ?? unknown }
    func string(_ value: String?) -> String { value.map { "present, \($0.count) characters" } ?? "none" }
    return [
      Row("Every network is given these same signals", "with each load and bid, and when they change"),
      Row("Personalised ads consent", flag(privacy.personalizedAdsConsent, unknown: "not known")),
      Row("GDPR consent (hasUserConsent)", flag(privacy.hasUserConsent, unknown: "not asked")),
      Row("Do not sell (CCPA)", flag(privacy.doNotSell, unknown: "not known")),
      Row("Child-directed (COPPA)", privacy.isChildDirected ? "yes" : "no"),
      Row(
        "TCF v2 string",
        string(iab.tcString) + ", GDPR applies: \(flag(iab.gdprApplies, unknown: "not known"))"),
      Row(
        "GPP string",
        string(iab.gppString)
          + (iab.gppSectionIDs.isEmpty
            ? "" : ", sections \(iab.gppSectionIDs.map(String.init).joined(separator: ","))")),
      Row("US Privacy string", iab.usPrivacyString ?? "none"),
    ]
  }

  /// A zone's configuration version and arms, whether it loads, and its queue.
  static func rows(of zone: Mediator.Inspection.Zone) -> [Row] {
    let arms = zone.experimentArms.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
    var rows = [
      Row("Configuration", "version \(zone.configurationVersion ?? "none")"),
      Row("Experiment arms", arms.isEmpty ? "none" : arms.joined(separator: "\n")),
      Row(
        "Queue",
        "\(zone.readyAds.count) ready ad\(zone.readyAds.count == 1 ? "" : "s")"
          + (zone.isLoading ? ", loading" : "")),
    ]
    rows += zone.readyAds.map { info in
      Row("Ready: \(winner(info))", "auction \(info.auctionID), ready after \(seconds(info.latency))")
    }
    return rows
  }

  /// An auction: its end, outcome and duration; each line item's fate and latency, one a line.
  static func row(_ auction: Mediator.Inspection.Auction) -> Row {
    var title = "\(seconds(auction.time))  "
    switch auction.outcome {
    case .success(let info): title += "auction \(info.auctionID): ready, \(winner(info))"
    case .failure(let error): title += "failed: \(error.code.rawValue)"
    }
    if let duration = auction.duration { title += " in \(seconds(duration))" }
    var lines = auction.responses.map(response)
    if case .failure(let error) = auction.outcome { lines.insert(error.message, at: 0) }
    return Row(title, lines.joined(separator: "\n"))
  }

  /// "ready · max": an event's name and network.
  static func title(of event: Mediator.ZoneEvent) -> String {
    event.network.map { "\(event.event.name) · \($0)" } ?? event.event.name
  }
}
