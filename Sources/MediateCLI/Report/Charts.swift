import Foundation

/// One series of a chart: its name in the legend, its colour, and its values.
struct ChartSeries {
  var name: String
  var color: String
  var values: [Double]
}

/// Horizontal grouped bars: one group per category, one bar per series, each labelled with its
/// value; a value axis with its unit underneath and a legend under the title.
struct BarChart {
  var id: String
  var title: String
  var axisLabel: String
  var categories: [String]
  var series: [ChartSeries]
  var valueLabel: (Double) -> String
  var width = 570.0

  func svg() -> String {
    let left = Chart.labelMargin(categories)
    let right = 80.0
    let top = 58.0
    let barHeight = 16.0
    let groupGap = 14.0
    let groupHeight = Double(series.count) * barHeight + groupGap
    let plotHeight = max(groupHeight * Double(categories.count), 40)
    let height = top + plotHeight + 48
    let maximum = series.flatMap(\.values).max() ?? 0
    let ticks = SVG.ticks(upTo: maximum)
    let scale = (width - left - right) / (ticks.last ?? 1)
    var parts = Chart.open(id: id, title: title, width: width, height: height)
    parts.append(SVG.legend(series.map { ($0.name, $0.color) }, x: left, y: 44, maxWidth: width - left - 10))
    parts.append(
      Chart.valueAxis(
        ticks: ticks, x0: left, scale: scale, top: top, bottom: top + plotHeight, label: axisLabel))
    for (index, category) in categories.enumerated() {
      let groupTop = top + Double(index) * groupHeight + groupGap / 2
      parts.append(
        SVG.text(
          category, x: left - 8, y: groupTop + Double(series.count) * barHeight / 2 + 4, anchor: "end",
          className: "category"))
      for (seriesIndex, serie) in series.enumerated() {
        let value = index < serie.values.count ? serie.values[index] : 0
        let y = groupTop + Double(seriesIndex) * barHeight
        let barWidth = max(value * scale, value > 0 ? 1 : 0)
        parts.append(
          "<rect class=\"bar\" x=\"\(SVG.n(left))\" y=\"\(SVG.n(y + 1))\" width=\"\(SVG.n(barWidth))\" "
            + "height=\"\(SVG.n(barHeight - 2))\" fill=\"\(serie.color)\" data-series=\"\(SVG.escape(serie.name))\" "
            + "data-category=\"\(SVG.escape(category))\" data-value=\"\(SVG.data(value))\">"
            + "<title>\(SVG.escape("\(category), \(serie.name): \(valueLabel(value))"))</title></rect>")
        parts.append(
          SVG.text(valueLabel(value), x: left + barWidth + 5, y: y + barHeight - 4, className: "value"))
      }
    }
    parts.append("</svg>")
    return parts.joined()
  }
}

/// Cumulative distribution lines: the share of values at or below x, with each series' p50, p90
/// and p99 marked.
struct CDFChart {
  struct Line {
    var name: String
    var color: String
    /// (x, share from 0 to 1), x ascending.
    var points: [(x: Double, share: Double)]
    /// Marked quantiles: (label, x).
    var markers: [(label: String, x: Double)]
  }

  var id: String
  var title: String
  var axisLabel: String
  var lines: [Line]
  var maxX: Double
  var width = 1160.0

  func svg() -> String {
    let left = 64.0
    let right = 24.0
    let top = 58.0
    let plotHeight = 250.0
    let height = top + plotHeight + 52
    let ticks = SVG.ticks(upTo: maxX, count: 10)
    let scaleX = (width - left - right) / (ticks.last ?? 1)
    func y(_ share: Double) -> Double { top + plotHeight * (1 - share) }
    var parts = Chart.open(id: id, title: title, width: width, height: height)
    parts.append(SVG.legend(lines.map { ($0.name, $0.color) }, x: left, y: 44, maxWidth: width - left - 10))
    parts.append(
      Chart.valueAxis(
        ticks: ticks, x0: left, scale: scaleX, top: top, bottom: top + plotHeight, label: axisLabel))
    for share in stride(from: 0.0, through: 1.0, by: 0.25) {
      parts.append(
        "<line class=\"grid\" x1=\"\(SVG.n(left))\" x2=\"\(SVG.n(width - right))\" y1=\"\(SVG.n(y(share)))\" y2=\"\(SVG.n(y(share)))\"/>"
      )
      parts.append(
        SVG.text("\(Int(share * 100))%", x: left - 6, y: y(share) + 4, anchor: "end", className: "tick"))
    }
    parts.append(
      SVG.text(
        "share of fills ready (%)", x: 14, y: top + plotHeight / 2, anchor: "middle", className: "axis-label",
        extra: " transform=\"rotate(-90 14 \(SVG.n(top + plotHeight / 2)))\""))
    for (lineIndex, line) in lines.enumerated() {
      let points = line.points.map { "\(SVG.n(left + min($0.x, maxX) * scaleX)),\(SVG.n(y($0.share)))" }
      parts.append(
        "<polyline class=\"cdf\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2.5\" "
          + "data-series=\"\(SVG.escape(line.name))\" points=\"\(points.joined(separator: " "))\"/>")
      for (markerIndex, marker) in line.markers.enumerated() {
        let x = left + min(marker.x, maxX) * scaleX
        parts.append(
          "<line class=\"marker\" x1=\"\(SVG.n(x))\" x2=\"\(SVG.n(x))\" y1=\"\(SVG.n(top))\" y2=\"\(SVG.n(top + plotHeight))\" "
            + "stroke=\"\(line.color)\" data-series=\"\(SVG.escape(line.name))\" data-label=\"\(marker.label)\" "
            + "data-value=\"\(SVG.data(marker.x))\"/>")
        let labelY = top + 14 + Double(markerIndex) * 14 + Double(lineIndex) * 44
        parts.append(
          SVG.text(
            "\(marker.label) \(SVG.tickLabel(marker.x)) ms", x: x + 4, y: labelY, className: "marker-label",
            extra: " fill=\"\(line.color)\""))
      }
    }
    parts.append("</svg>")
    return parts.joined()
  }
}

/// One 100% stacked bar per line item: the share of auctions in which it ended in each state.
struct FunnelChart {
  struct Row {
    var label: String
    var counts: [(state: String, count: Int)]
  }

  var id: String
  var title: String
  var rows: [Row]
  var states: [(state: String, color: String)]
  var width = 1160.0

  func svg() -> String {
    let left = Chart.labelMargin(rows.map(\.label))
    let right = 24.0
    let top = 78.0
    let rowHeight = 30.0
    let plotHeight = max(Double(rows.count) * rowHeight, 30)
    let height = top + plotHeight + 48
    let plotWidth = width - left - right
    var parts = Chart.open(id: id, title: title, width: width, height: height)
    let present = states.filter { state in
      rows.contains { $0.counts.contains { $0.state == state.state && $0.count > 0 } }
    }
    parts.append(SVG.legend(present.map { ($0.state, $0.color) }, x: left, y: 44, maxWidth: plotWidth))
    parts.append(
      Chart.valueAxis(
        ticks: [0, 25, 50, 75, 100], x0: left, scale: plotWidth / 100, top: top, bottom: top + plotHeight,
        label: "share of the auctions the line item took part in (%)"))
    for (index, row) in rows.enumerated() {
      let y = top + Double(index) * rowHeight + 5
      let total = row.counts.reduce(0) { $0 + $1.count }
      parts.append(SVG.text(row.label, x: left - 8, y: y + 15, anchor: "end", className: "category"))
      var x = left
      for state in states {
        let count = row.counts.first { $0.state == state.state }?.count ?? 0
        guard count > 0, total > 0 else { continue }
        let share = Double(count) / Double(total)
        let segment = share * plotWidth
        parts.append(
          "<rect class=\"segment\" x=\"\(SVG.n(x))\" y=\"\(SVG.n(y))\" width=\"\(SVG.n(segment))\" height=\"20\" "
            + "fill=\"\(state.color)\" data-row=\"\(SVG.escape(row.label))\" data-state=\"\(state.state)\" "
            + "data-count=\"\(count)\"><title>\(SVG.escape("\(row.label): \(state.state) \(count) (\(String(format: "%.1f", share * 100))%)"))</title></rect>"
        )
        if segment > 46 {
          parts.append(
            SVG.text(
              String(format: "%.0f%%", share * 100), x: x + segment / 2, y: y + 14, anchor: "middle",
              className: Palette.isLight(state.color) ? "segment-label dark" : "segment-label"))
        }
        x += segment
      }
    }
    parts.append("</svg>")
    return parts.joined()
  }
}

/// Differences with their confidence intervals, each as a change relative to A: a dot, a whisker
/// and the figures, around a zero line.
struct ForestPlot {
  struct Row {
    var label: String
    /// Relative change and its interval, as fractions of A's value; `nil` interval when unavailable.
    var change: Double
    var interval: ClosedRange<Double>?
    /// The absolute difference and interval, as text.
    var detail: String
    /// Whether the change is good (green), bad (red) or neither (grey).
    var color: String
  }

  var id: String
  var title: String
  var rows: [Row]
  var width = 1160.0

  func svg() -> String {
    let left = 170.0
    let right = 360.0
    let top = 58.0
    let rowHeight = 30.0
    let plotHeight = Double(rows.count) * rowHeight
    let height = top + plotHeight + 52
    let extent =
      max(
        rows.map { max(abs($0.change), abs($0.interval?.lowerBound ?? 0), abs($0.interval?.upperBound ?? 0)) }
          .max()
          ?? 0, 0.001) * 100
    let ticks = SVG.ticks(upTo: extent, count: 4)
    let half = ticks.last ?? 1
    let plotWidth = width - left - right
    let center = left + plotWidth / 2
    let scale = plotWidth / 2 / half
    func x(_ fraction: Double) -> Double { center + fraction * 100 * scale }
    var parts = Chart.open(id: id, title: title, width: width, height: height)
    parts.append(
      SVG.legend(
        [
          ("B better", Palette.good), ("A better", Palette.bad),
          ("no significant difference", Palette.neutral),
        ],
        x: left, y: 44, maxWidth: plotWidth + right))
    let symmetric = ticks.reversed().map { -$0 } + ticks.dropFirst()
    for tick in symmetric {
      let tickX = center + tick * scale
      parts.append(
        "<line class=\"\(tick == 0 ? "zero" : "grid")\" x1=\"\(SVG.n(tickX))\" x2=\"\(SVG.n(tickX))\" y1=\"\(SVG.n(top))\" y2=\"\(SVG.n(top + plotHeight))\"/>"
      )
      parts.append(
        SVG.text(
          (tick > 0 ? "+" : tick < 0 ? "−" : "") + SVG.tickLabel(abs(tick)) + "%", x: tickX,
          y: top + plotHeight + 16,
          anchor: "middle", className: "tick"))
    }
    parts.append(
      SVG.text(
        "change of B relative to A (%), with its 95% confidence interval", x: center,
        y: top + plotHeight + 40,
        anchor: "middle", className: "axis-label"))
    for (index, row) in rows.enumerated() {
      let y = top + Double(index) * rowHeight + rowHeight / 2
      parts.append(SVG.text(row.label, x: left - 10, y: y + 4, anchor: "end", className: "category"))
      var interval = ""
      if let ci = row.interval {
        interval = " data-low=\"\(SVG.data(ci.lowerBound))\" data-high=\"\(SVG.data(ci.upperBound))\""
        parts.append(
          "<line class=\"whisker\" x1=\"\(SVG.n(x(ci.lowerBound)))\" x2=\"\(SVG.n(x(ci.upperBound)))\" y1=\"\(SVG.n(y))\" y2=\"\(SVG.n(y))\" stroke=\"\(row.color)\" stroke-width=\"3\"/>"
        )
      }
      parts.append(
        "<circle class=\"estimate\" cx=\"\(SVG.n(x(row.change)))\" cy=\"\(SVG.n(y))\" r=\"5.5\" fill=\"\(row.color)\" "
          + "data-metric=\"\(SVG.escape(row.label))\" data-value=\"\(SVG.data(row.change))\"\(interval)>"
          + "<title>\(SVG.escape("\(row.label): \(row.detail)"))</title></circle>")
      parts.append(SVG.text(row.detail, x: width - right + 12, y: y + 4, className: "detail"))
    }
    parts.append("</svg>")
    return parts.joined()
  }
}

/// What every chart shares.
enum Chart {
  /// The `<svg>` element with its accessible title, and the title drawn on top.
  static func open(id: String, title: String, width: Double, height: Double) -> [String] {
    [
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"\(id)\" class=\"chart\" viewBox=\"0 0 \(SVG.n(width)) \(SVG.n(height))\" "
        + "width=\"\(SVG.n(width))\" height=\"\(SVG.n(height))\" role=\"img\" aria-labelledby=\"\(id)-title\">",
      "<title id=\"\(id)-title\">\(SVG.escape(title))</title>",
      SVG.text(title, x: 0, y: 20, className: "chart-title"),
    ]
  }

  /// Room left of the plot for the longest of `labels` (about 7 px a character at 12 px).
  static func labelMargin(_ labels: [String]) -> Double {
    max(80, Double(labels.map(\.count).max() ?? 0) * 6.8 + 18)
  }

  /// A horizontal value axis under the plot: grid lines, tick labels, and the axis label.
  static func valueAxis(
    ticks: [Double], x0: Double, scale: Double, top: Double, bottom: Double, label: String
  ) -> String {
    var parts: [String] = []
    for tick in ticks {
      let x = x0 + tick * scale
      parts.append(
        "<line class=\"\(tick == 0 ? "axis" : "grid")\" x1=\"\(SVG.n(x))\" x2=\"\(SVG.n(x))\" y1=\"\(SVG.n(top))\" y2=\"\(SVG.n(bottom))\"/>"
      )
      parts.append(SVG.text(SVG.tickLabel(tick), x: x, y: bottom + 16, anchor: "middle", className: "tick"))
    }
    let middle = x0 + (ticks.last ?? 0) * scale / 2
    parts.append(SVG.text(label, x: middle, y: bottom + 38, anchor: "middle", className: "axis-label"))
    return parts.joined()
  }
}

/// The report's colours (colour-blind-safe Tableau 10).
enum Palette {
  static let a = "#4C78A8"
  static let b = "#F58518"
  static let good = "#2E8B57"
  static let bad = "#D62728"
  static let neutral = "#8C8C8C"
  static let oracle = "#BAB0AC"
  static let earned = "#59A14F"

  /// Whether text on `color` should be dark.
  static func isLight(_ color: String) -> Bool { ["#D5D5D5", "#EECA3B", "#FF9DA6"].contains(color) }

  /// Each line item state's colour, in the order the funnel stacks them.
  static let states: [(state: String, color: String)] = [
    ("loaded", "#54A24B"), ("bid", "#72B7B2"), ("outbid", "#B279A2"), ("below_floor", "#FF9DA6"),
    ("no_bid", "#EECA3B"), ("failed", "#E45756"), ("timed_out", "#F58518"), ("skipped", "#9D755D"),
    ("not_started", "#79706E"),
    ("not_attempted", "#D5D5D5"),
  ]
}
