import Foundation

/// A session of a flight recording drawn as swim lanes (``SessionTimeline``): one column per
/// instant at which an input arrived (the time above it; columns are not to scale), a lane for
/// the app's loads and shows, one per request with a bar from its sending to its answer in the
/// colour of its fate, one for the show on screen with the network's signals and the reward, and
/// one for the events the zone published.
struct TimelineChart {
  var id: String
  var title: String
  var timeline: SessionTimeline
  var width = 1160.0
  /// The most columns drawn; a longer session is cut there, saying so.
  static let maxColumns = 60
  /// The narrowest column whose signals and events are named in words.
  static let columnForWords = 56.0

  /// The colour of the show on screen, the reward, and a reward not granted.
  static let showColor = Palette.a
  static let rewardColor = "#EECA3B"
  static let lateRewardColor = Palette.bad

  func svg() -> String {
    let instants = Array(timeline.instants.prefix(Self.maxColumns))
    let cut = timeline.instants.count - instants.count
    let drawn = Set(instants)
    // Past the cut, a request would be an empty lane.
    let requests = timeline.requests.filter { drawn.contains($0.start) }
    let lanes = ["app"] + requests.map(\.label) + ["show", "events"]
    let left = min(Chart.labelMargin(lanes), 360)
    let right = 24.0
    let top = 132.0
    let laneHeight = 30.0
    let eventsHeight = 16.0 + 12 * Double(maxEventsPerInstant(instants))
    let height = top + laneHeight * Double(lanes.count - 1) + eventsHeight + (cut > 0 ? 36 : 16)
    let column = (width - left - right) / Double(max(1, instants.count))
    let columns = Dictionary(instants.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    /// The centre of `time`'s column; `nil` past the last column drawn.
    func x(_ time: Duration) -> Double? { columns[time].map { left + (Double($0) + 0.5) * column } }
    func laneY(_ index: Int) -> Double { top + Double(index) * laneHeight }

    var parts = Chart.open(id: id, title: title, width: width, height: height)
    parts.append(SVG.legend(legend(), x: left, y: 44, maxWidth: width - left - 10))
    // Time labels at least 28 px apart: on narrow columns, every few columns.
    let labelEvery = max(1, Int((28 / column).rounded(.up)))
    for (index, instant) in instants.enumerated() {
      let center = left + (Double(index) + 0.5) * column
      parts.append(
        "<line class=\"grid\" x1=\"\(SVG.n(center))\" x2=\"\(SVG.n(center))\" y1=\"\(SVG.n(top - 8))\" "
          + "y2=\"\(SVG.n(height - (cut > 0 ? 30 : 10)))\"/>")
      guard index.isMultiple(of: labelEvery) else { continue }
      parts.append(
        SVG.text(
          "\(SVG.tickLabel(Double(instant.milliseconds))) ms", x: center, y: top - 14, className: "tick",
          extra: " transform=\"rotate(-40 \(SVG.n(center)) \(SVG.n(top - 14)))\""))
    }
    for (index, lane) in lanes.enumerated() {
      parts.append(
        SVG.text(lane, x: left - 8, y: laneY(index) + 4, anchor: "end", className: "category"))
    }
    for mark in timeline.app {
      guard let cx = x(mark.time) else { continue }
      parts.append(
        marker(
          cx, laneY(0), color: "#555", kind: "app", label: mark.label, named: column >= Self.columnForWords))
    }
    for (index, request) in requests.enumerated() {
      guard let start = x(request.start) else { continue }
      let end = x(request.end) ?? (width - right)
      let y = laneY(index + 1)
      let color = Palette.states.first { $0.state == request.fate }?.color ?? Palette.neutral
      let x0 = start - column * 0.35
      let barWidth = max(end - start + column * 0.7, 4)
      parts.append(
        "<rect class=\"request\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(y - 9))\" width=\"\(SVG.n(barWidth))\" height=\"18\" "
          + "rx=\"3\" fill=\"\(color)\" data-lane=\"\(SVG.escape(request.label))\" data-state=\"\(request.fate)\">"
          + "<title>\(SVG.escape("\(request.label): \(request.fate) (\(request.note))"))</title></rect>")
      // On a bar too narrow for words, the fate is in the bar's tooltip and the legend.
      guard barWidth >= 40 else { continue }
      let fate = request.fate.replacingOccurrences(of: "_", with: " ")
      parts.append(
        SVG.text(
          request.note == fate || request.note.isEmpty ? fate : "\(fate) · \(request.note)", x: x0 + 5,
          y: y + 4,
          className: Palette.isLight(color) ? "segment-label dark" : "segment-label"))
    }
    let showY = laneY(lanes.count - 2)
    parts += shows(x: x, column: column, y: showY, right: width - right)
    parts += rewards(x: x, y: showY)
    parts += events(x: x, column: column, y: laneY(lanes.count - 1), instants: instants)
    if cut > 0 {
      parts.append(
        SVG.text(
          "… \(cut) more instants; mediate inspect lists every input", x: left, y: height - 12,
          className: "axis-label"))
    }
    parts.append("</svg>")
    return parts.joined()
  }

  private func legend() -> [(name: String, color: String)] {
    let fates = Set(timeline.requests.map(\.fate))
    var entries = Palette.states.filter { fates.contains($0.state) }.map { ($0.state, $0.color) }
    if !timeline.shows.isEmpty { entries.append(("show on screen", Self.showColor)) }
    if timeline.rewards.contains(where: \.granted) { entries.append(("reward", Self.rewardColor)) }
    if timeline.rewards.contains(where: { !$0.granted }) {
      entries.append(("reward not granted", Self.lateRewardColor))
    }
    return entries
  }

  /// The show lane: each show's bar, and the network's signals on it.
  private func shows(x: (Duration) -> Double?, column: Double, y: Double, right: Double) -> [String] {
    var parts: [String] = []
    for show in timeline.shows {
      guard let start = x(show.start) else { continue }
      let end = x(show.end) ?? right
      parts.append(
        "<rect class=\"show\" x=\"\(SVG.n(start - column * 0.35))\" y=\"\(SVG.n(y - 9))\" "
          + "width=\"\(SVG.n(max(end - start + column * 0.7, 4)))\" height=\"18\" rx=\"3\" fill=\"\(Self.showColor)\" "
          + "data-outcome=\"\(show.outcome)\"><title>\(SVG.escape("the show: \(show.outcome)"))</title></rect>"
      )
    }
    for (index, signal) in timeline.signals.enumerated() {
      guard let cx = x(signal.time) else { continue }
      parts.append(
        "<circle class=\"signal\" cx=\"\(SVG.n(cx))\" cy=\"\(SVG.n(y))\" r=\"5\" fill=\"#fff\" stroke=\"#222\" "
          + "stroke-width=\"1.5\" data-signal=\"\(SVG.escape(signal.label))\">"
          + "<title>\(SVG.escape("signal: \(signal.label)"))</title></circle>")
      // Alternate above and below the lane, so neighbouring signals' names do not run together;
      // on narrow columns, only the tooltip names them.
      guard column >= Self.columnForWords else { continue }
      parts.append(
        SVG.text(
          signal.label, x: cx + 7, y: y + (index.isMultiple(of: 2) ? -11 : 19), className: "marker-label"))
    }
    return parts
  }

  /// The reward on the show lane: a star, gold when granted, red when not.
  private func rewards(x: (Duration) -> Double?, y: Double) -> [String] {
    timeline.rewards.compactMap { reward in
      guard let cx = x(reward.mark.time) else { return nil }
      let points = (0..<10).map { point -> String in
        let angle = Double(point) * .pi / 5 - .pi / 2
        let radius = point.isMultiple(of: 2) ? 10.0 : 4.5
        return "\(SVG.n(cx + radius * cos(angle))),\(SVG.n(y + radius * sin(angle)))"
      }
      let color = reward.granted ? Self.rewardColor : Self.lateRewardColor
      return "<polygon class=\"reward\" points=\"\(points.joined(separator: " "))\" fill=\"\(color)\" "
        + "stroke=\"#333\" stroke-width=\"1\" data-granted=\"\(reward.granted)\" "
        + "data-label=\"\(SVG.escape(reward.mark.label))\"><title>\(SVG.escape("reward: \(reward.mark.label)"))</title></polygon>"
    }
  }

  /// The events lane: each instant's published events, one name a line.
  private func events(x: (Duration) -> Double?, column: Double, y: Double, instants: [Duration]) -> [String] {
    var parts: [String] = []
    var byInstant: [Duration: [String]] = [:]
    for event in timeline.events { byInstant[event.time, default: []].append(event.label) }
    for instant in instants {
      guard let names = byInstant[instant], let cx = x(instant) else { continue }
      for (line, name) in names.enumerated() {
        // On narrow columns, a dot with the name as its tooltip.
        parts.append(
          column >= Self.columnForWords
            ? SVG.text(
              name, x: cx, y: y + 4 + Double(line) * 12, anchor: "middle", className: "event",
              extra: " data-event=\"\(SVG.escape(name))\"")
            : "<circle class=\"event\" cx=\"\(SVG.n(cx))\" cy=\"\(SVG.n(y + Double(line) * 12))\" r=\"2.5\" "
              + "fill=\"#333\" data-event=\"\(SVG.escape(name))\"><title>\(SVG.escape(name))</title></circle>"
        )
      }
    }
    return parts
  }

  private func maxEventsPerInstant(_ instants: [Duration]) -> Int {
    var counts: [Duration: Int] = [:]
    for event in timeline.events { counts[event.time, default: 0] += 1 }
    return instants.map { counts[$0] ?? 0 }.max() ?? 0
  }

  /// A dot with its tooltip, and its label beside it when `named`.
  private func marker(_ cx: Double, _ y: Double, color: String, kind: String, label: String, named: Bool)
    -> String
  {
    "<circle class=\"\(kind)\" cx=\"\(SVG.n(cx))\" cy=\"\(SVG.n(y))\" r=\"6\" fill=\"\(color)\" "
      + "data-label=\"\(SVG.escape(label))\"><title>\(SVG.escape(label))</title></circle>"
      + (named ? SVG.text(label, x: cx + 9, y: y + 4, className: "marker-label") : "")
  }
}
