import Foundation
import MediationKit

/// The `--report FILE.html` page of the simulator and of `compare`: one self-contained file —
/// inline CSS and SVG, no script, nothing fetched — with revenue and wins by network, efficiency
/// against the oracle, the time-to-ready CDF, every line item's fates and, for a comparison, every
/// difference with its 95% confidence interval. Laid out for a 1280 px wide window.
enum HTMLReport {
  /// One side of a report: its name, colour and figures.
  struct Side {
    var name: String
    var color: String
    var stats: SimulationStats
  }

  /// The chart titles, which `.ci/run` looks for in the rendered page.
  enum Title {
    static let revenueByNetwork = "Revenue by network"
    static let winsByNetwork = "Wins by network"
    static let oracle = "Revenue against the oracle"
    static let timeToReady = "Time to ready (CDF)"
    static let funnel = "Waterfall funnel: what became of each line item"
    static let deltas = "B against A, with 95% confidence intervals"
  }

  static func simulation(_ stats: SimulationStats, settings: RunCommand.Settings) -> String {
    let zone = settings.zone
    let subtitle =
      "\(stats.requests) simulated sessions · \(zone.strategy.rawValue) · networks "
      + settings.networks.map(\.rawValue).joined(separator: ", ")
      + " · seed \(settings.seed) · \(settings.source)"
    let side = Side(name: "zone \(zone.id)", color: Palette.a, stats: stats)
    var body = [cards([side])]
    body.append(charts([side]))
    body.append(section(funnel(side, id: "funnel")))
    return page(title: "Simulation of zone '\(zone.id)'", subtitle: subtitle, body: body)
  }

  static func comparison(
    _ result: ComparisonResult, settings: Comparison.Settings, sources: (a: String, b: String)
  )
    -> String
  {
    let report = ComparisonReport(result: result, settings: settings)
    let last = settings.seed &+ UInt64(settings.replications - 1)
    let subtitle =
      "\(settings.requests) requests × \(settings.replications) replications per side, paired seeds "
      + "\(settings.seed)…\(last) · networks " + settings.networks.map(\.rawValue).joined(separator: ", ")
    let sides = [
      Side(name: "A", color: Palette.a, stats: result.a), Side(name: "B", color: Palette.b, stats: result.b),
    ]
    var body = [
      "<p class=\"sources\"><span class=\"swatch\" style=\"background:\(Palette.a)\"></span><b>A</b> \(SVG.escape(sources.a)) (\(settings.a.strategy.rawValue)) "
        + "<span class=\"swatch\" style=\"background:\(Palette.b)\"></span><b>B</b> \(SVG.escape(sources.b)) (\(settings.b.strategy.rawValue))</p>",
      "<p class=\"verdict \(result.verdict.rawValue)\">\(SVG.escape(report.verdictLine))</p>",
      cards(sides),
    ]
    body.append(section(forest(report) + deltaTable(report)))
    body.append(charts(sides))
    for (index, side) in sides.enumerated() {
      body.append(section(funnel(side, id: "funnel-\(index == 0 ? "a" : "b")")))
    }
    return page(title: "Comparison of zone '\(settings.a.id)'", subtitle: subtitle, body: body)
  }

  /// Writes `html` to `path` (``OutputFile``'s rules: a FIFO, device or directory is refused).
  static func write(_ html: String, to path: String) throws(CLIError) {
    try OutputFile.write(Data(html.utf8), to: path, what: "report")
  }

  // MARK: - Parts

  private static func cards(_ sides: [Side]) -> String {
    func card(_ label: String, _ value: (SimulationStats) -> String) -> String {
      let values = sides.map { side in
        "<div class=\"value\"" + (sides.count > 1 ? " style=\"color:\(side.color)\"" : "") + ">"
          + (sides.count > 1 ? "<small>\(side.name)</small> " : "") + SVG.escape(value(side.stats)) + "</div>"
      }
      return "<div class=\"card\"><div class=\"label\">\(label)</div>\(values.joined())</div>"
    }
    return "<div class=\"cards\">"
      + card("Revenue") { String(format: "$%.2f", $0.revenueUSD) }
      + card("Efficiency vs oracle") { String(format: "%.2f%%", $0.revenueEfficiency * 100) }
      + card("Fill rate") { String(format: "%.2f%%", $0.fillRate * 100) }
      + card("Shows · rewards") { "\($0.shows) · \($0.rewards)" }
      + card("Ready p50 · p90 · p99") {
        "\($0.readyLatency.quantile(0.5)) · \($0.readyLatency.quantile(0.9)) · \($0.readyLatency.quantile(0.99)) ms"
      }
      + "</div>"
  }

  private static func charts(_ sides: [Side]) -> String {
    let networks = Set(sides.flatMap { Array($0.stats.wins.keys) + Array($0.stats.revenueByNetwork.keys) })
      .sorted { $0.rawValue < $1.rawValue }
    let series: (KeyPath<SimulationStats, [NetworkID: Double]>) -> [ChartSeries] = { path in
      sides.map { side in
        ChartSeries(
          name: side.name, color: side.color, values: networks.map { side.stats[keyPath: path][$0] ?? 0 })
      }
    }
    let revenue = BarChart(
      id: "revenue-by-network", title: Title.revenueByNetwork, axisLabel: "revenue (USD)",
      categories: networks.map(\.rawValue), series: series(\.revenueByNetwork),
      valueLabel: { String(format: "$%.2f", $0) })
    let wins = BarChart(
      id: "wins-by-network", title: Title.winsByNetwork, axisLabel: "fills won (count)",
      categories: networks.map(\.rawValue),
      series: sides.map { side in
        ChartSeries(
          name: side.name, color: side.color, values: networks.map { Double(side.stats.wins[$0] ?? 0) })
      },
      valueLabel: { SVG.tickLabel($0) })
    let oracle = BarChart(
      id: "oracle", title: Title.oracle, axisLabel: "revenue (USD)",
      categories: sides.map { String(format: "%@ · %.2f%%", $0.name, $0.stats.revenueEfficiency * 100) },
      series: [
        ChartSeries(name: "earned", color: Palette.earned, values: sides.map(\.stats.revenueUSD)),
        ChartSeries(
          name: "oracle (best price any network would have paid)", color: Palette.oracle,
          values: sides.map(\.stats.oracleRevenueUSD)),
      ],
      valueLabel: { String(format: "$%.2f", $0) }, width: 1160)
    return "<section class=\"pair\">" + revenue.svg() + wins.svg() + "</section>" + section(oracle.svg())
      + section(cdf(sides))
  }

  private static func cdf(_ sides: [Side]) -> String {
    let tail = sides.map { Double($0.stats.readyLatency.quantile(0.995)) }.max() ?? 0
    let maxX = max(100, (tail * 1.05 / 100).rounded(.up) * 100)
    let steps = 240
    let limits = (0...steps).map { Int((Double($0) * maxX / Double(steps)).rounded()) }
    let lines = sides.map { side in
      let histogram = side.stats.readyLatency
      let counts = histogram.countsAtOrBelow(limits)
      let total = Double(max(1, histogram.count))
      return CDFChart.Line(
        name: side.name, color: side.color,
        points: zip(limits, counts).map { (x: Double($0), share: Double($1) / total) },
        markers: [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)].map {
          (label: $0.0, x: Double(histogram.quantile($0.1)))
        })
    }
    return CDFChart(
      id: "time-to-ready", title: Title.timeToReady, axisLabel: "time from load to ready (ms)", lines: lines,
      maxX: maxX
    ).svg()
  }

  private static func funnel(_ side: Side, id: String) -> String {
    let rows = side.stats.funnel.counts.keys.sorted().map { key in
      let counts = side.stats.funnel.counts[key] ?? [:]
      return FunnelChart.Row(
        label: "tier \(key.priority) · \(key.network.rawValue) · \(shortened(key.placementID))",
        counts: counts.map { (state: $0.key.rawValue, count: $0.value) }.sorted { $0.state < $1.state })
    }
    let title =
      Title.funnel + (side.name.count == 1 ? " (\(side.name))" : "")
      + " · \(SVG.tickLabel(Double(side.stats.funnel.auctions))) auctions"
    return FunnelChart(id: id, title: title, rows: rows, states: Palette.states).svg()
  }

  /// A placement id of at most 28 characters, elided in the middle.
  static func shortened(_ id: String) -> String {
    guard id.count > 28 else { return id }
    return String(id.prefix(14)) + "…" + String(id.suffix(13))
  }

  private static func forest(_ report: ComparisonReport) -> String {
    let result = report.result
    let rows = ComparedMetric.allCases.map { metric in
      let delta = result.delta(metric)
      let base = metric.value(result.a)
      let relative = base == 0 ? 0 : delta.diff / base
      let interval = base == 0 ? nil : delta.ci95.map { ($0.lowerBound / base)...($0.upperBound / base) }
      var color = Palette.neutral
      if let ci = delta.ci95, ci.lowerBound > 0 || ci.upperBound < 0 {
        color = (ci.lowerBound > 0) == metric.higherIsBetter ? Palette.good : Palette.bad
      }
      let ci =
        delta.ci95.map {
          "\(ComparisonReport.signed(metric, $0.lowerBound)) … \(ComparisonReport.signed(metric, $0.upperBound))"
        } ?? "CI unavailable"
      return ForestPlot.Row(
        label: metric.label, change: relative, interval: interval,
        detail: "\(ComparisonReport.signed(metric, delta.diff))  (\(ci))", color: color)
    }
    return ForestPlot(id: "deltas", title: Title.deltas, rows: rows).svg()
  }

  private static func deltaTable(_ report: ComparisonReport) -> String {
    let result = report.result
    var rows = [
      "<table class=\"deltas\"><thead><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th><th>95% CI of B − A</th></tr></thead><tbody>"
    ]
    for metric in ComparedMetric.allCases {
      let delta = result.delta(metric)
      let ci =
        delta.ci95.map {
          "\(ComparisonReport.signed(metric, $0.lowerBound)) … \(ComparisonReport.signed(metric, $0.upperBound))"
        } ?? "unavailable (1 replication)"
      let cells = [
        metric.label, ComparisonReport.format(metric, metric.value(result.a)),
        ComparisonReport.format(metric, metric.value(result.b)), ComparisonReport.signed(metric, delta.diff),
        ci,
      ]
      rows.append("<tr>" + cells.map { "<td>\(SVG.escape($0))</td>" }.joined() + "</tr>")
    }
    rows.append("</tbody></table>")
    return rows.joined()
  }

  static func section(_ content: String) -> String { "<section>\(content)</section>" }

  static let simulationFooter =
    "simulated networks on virtual time; the oracle is the best price any participating network would have paid in the same seeded auction."

  /// The whole page: `body` under a header, the report's CSS (and `extraCSS`), and `footer`
  /// after MediationKit's name and `mediate`'s version.
  static func page(
    title: String, subtitle: String, body: [String], footer: String = simulationFooter, extraCSS: String = ""
  ) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8"/>
    <meta name="viewport" content="width=device-width, initial-scale=1"/>
    <title>\(SVG.escape(title)) · MediationKit</title>
    <style>
    \(css)
    \(extraCSS)
    </style>
    </head>
    <body>
    <header><h1>\(SVG.escape(title))</h1><p class="subtitle">\(SVG.escape(subtitle))</p></header>
    \(body.joined(separator: "\n"))
    <footer>MediationKit · mediate \(MediateCLI.version) · \(SVG.escape(footer))</footer>
    </body>
    </html>
    """
  }

  private static let css = """
    body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #222; background: #f4f5f7; margin: 0; }
    header, section, .cards, .verdict, .sources, footer { max-width: 1200px; margin: 0 auto 16px; box-sizing: border-box; }
    header { padding: 24px 0 4px; }
    h1 { font-size: 24px; margin: 0 0 4px; }
    .subtitle, footer { color: #666; }
    footer { font-size: 12px; padding: 8px 0 32px; }
    section { background: #fff; border-radius: 8px; padding: 16px 20px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
    section.pair { display: flex; justify-content: space-between; gap: 20px; }
    .cards { display: flex; gap: 12px; }
    .card { flex: 1; background: #fff; border-radius: 8px; padding: 12px 16px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
    .card .label { color: #666; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
    .card .value { font-size: 20px; font-weight: 600; white-space: nowrap; }
    .card small { font-size: 12px; font-weight: 700; }
    .verdict { font-size: 18px; font-weight: 600; padding: 12px 16px; border-radius: 8px; background: #fff; border-left: 6px solid #8C8C8C; }
    .verdict.b_better { border-color: #2E8B57; } .verdict.a_better { border-color: #D62728; }
    .sources .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin: 0 4px 0 12px; vertical-align: -1px; }
    svg.chart { display: block; max-width: 100%; height: auto; font-size: 12px; }
    .chart-title { font-size: 16px; font-weight: 600; fill: #222; }
    .tick, .value, .detail, .legend-label { fill: #444; }
    .axis-label { fill: #555; font-style: italic; }
    .category { fill: #222; }
    .marker-label { font-size: 11px; font-weight: 600; }
    .segment-label { fill: #fff; font-size: 11px; font-weight: 600; } .segment-label.dark { fill: #333; }
    line.grid { stroke: #e3e3e3; } line.axis, line.zero { stroke: #888; } line.marker { stroke-dasharray: 4 3; }
    table.deltas { border-collapse: collapse; width: 100%; margin-top: 12px; }
    table.deltas th, table.deltas td { text-align: right; padding: 4px 10px; border-bottom: 1px solid #eee; font-variant-numeric: tabular-nums; }
    table.deltas th:first-child, table.deltas td:first-child { text-align: left; }
    """
}
