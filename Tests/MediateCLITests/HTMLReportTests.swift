import Foundation
import MediationKit
import Testing

@testable import MediateCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The HTML report: well-formed, self-contained, and the numbers in its charts are the run's.
@Suite("HTML report")
struct HTMLReportTests {
  /// The report's markup parsed as XML: every element with its attributes and its own text.
  final class Document: NSObject, XMLParserDelegate {
    struct Element {
      var name: String
      var attributes: [String: String]
      var text = ""
      var parent: Int?
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []

    init(_ html: String) {
      super.init()
      let parser = XMLParser(data: Data(html.utf8))
      parser.delegate = self
      if !parser.parse() { Issue.record("not well-formed: \(String(describing: parser.parserError))") }
    }

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String]
    ) {
      elements.append(Element(name: name, attributes: attributes, parent: open.last))
      open.append(elements.count - 1)
    }

    func parser(
      _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
    ) {
      open.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if let last = open.last { elements[last].text += string }
    }

    /// The elements named `name` inside the element with id `id`.
    func elements(_ name: String, in id: String) -> [Element] {
      guard let root = elements.firstIndex(where: { $0.attributes["id"] == id }) else { return [] }
      return elements.enumerated().filter { index, element in
        guard element.name == name else { return false }
        var parent = element.parent
        while let current = parent {
          if current == root { return true }
          parent = elements[current].parent
        }
        return false
      }.map(\.element)
    }

    func texts(in id: String) -> [String] { elements("text", in: id).map(\.text) }
  }

  static func run(requests: Int = 3000, keepsFunnel: Bool = true) throws -> (
    SimulationStats, RunCommand.Settings
  ) {
    let zone = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "t").zone("level_complete")
    let networks: [NetworkID] = ["empower", "max", "google"]
    let stats = try Simulator(
      settings: Simulator.Settings(
        zone: zone, networks: networks, seed: 3, requests: requests, keepsFunnel: keepsFunnel),
      registry: BuiltInNetworks.registry()
    ).run()
    return (stats, RunCommand.Settings(zone: zone, networks: networks, seed: 3, source: "built-in default"))
  }

  static func value(_ element: Document.Element, _ key: String = "data-value") -> Double {
    Double(element.attributes[key] ?? "") ?? .nan
  }

  @Test func simulationReportIsSelfContainedWithEveryChart() throws {
    let (stats, settings) = try Self.run()
    let html = HTMLReport.simulation(stats, settings: settings)
    let document = Document(html)
    for forbidden in ["<script", "src=", "href=", "@import", "url(", "https://"] {
      #expect(!html.contains(forbidden), "\(forbidden)")
    }
    // The only URL is the SVG namespace, an identifier that is never fetched.
    #expect(
      html.components(separatedBy: "http://").count - 1 == html.components(
        separatedBy: "xmlns=\"http://www.w3.org/2000/svg\""
      ).count - 1)
    let charts = document.elements.filter { $0.name == "svg" }
    #expect(
      charts.map { $0.attributes["id"] ?? "" } == [
        "revenue-by-network", "wins-by-network", "oracle", "time-to-ready", "funnel",
      ])
    for chart in charts {
      let id = try #require(chart.attributes["id"])
      #expect(chart.attributes["role"] == "img")
      #expect(chart.attributes["viewBox"] != nil)
      // A title, a legend, and an axis with its unit.
      #expect(document.elements("title", in: id).first?.text.isEmpty == false, "\(id)")
      #expect(document.elements("text", in: id).contains { $0.attributes["class"] == "chart-title" }, "\(id)")
      #expect(document.elements("g", in: id).contains { $0.attributes["class"] == "legend" }, "\(id)")
      let axis = document.elements("text", in: id).filter { $0.attributes["class"] == "axis-label" }.map(
        \.text)
      #expect(axis.contains { $0.contains("(") && $0.contains(")") }, "\(id): \(axis)")
    }
  }

  @Test func chartNumbersAreTheRunsNumbers() throws {
    let (stats, settings) = try Self.run()
    let document = Document(HTMLReport.simulation(stats, settings: settings))
    let revenueBars = document.elements("rect", in: "revenue-by-network").filter {
      $0.attributes["class"] == "bar"
    }
    #expect(Set(revenueBars.compactMap { $0.attributes["data-category"] }) == ["empower", "max", "google"])
    for bar in revenueBars {
      let network = NetworkID(bar.attributes["data-category"] ?? "")
      #expect(abs(Self.value(bar) - (stats.revenueByNetwork[network] ?? 0)) < 1e-6)
    }
    #expect(abs(stats.revenueByNetwork.values.reduce(0, +) - stats.revenueUSD) < 1e-6)
    for bar in document.elements("rect", in: "wins-by-network").filter({ $0.attributes["class"] == "bar" }) {
      let network = NetworkID(bar.attributes["data-category"] ?? "")
      #expect(Self.value(bar) == Double(stats.wins[network] ?? 0))
    }
    let oracle = document.elements("rect", in: "oracle").filter { $0.attributes["class"] == "bar" }
    #expect(oracle.map { Self.value($0) }.count == 2)
    #expect(abs(Self.value(oracle[0]) - stats.revenueUSD) < 1e-6)
    #expect(abs(Self.value(oracle[1]) - stats.oracleRevenueUSD) < 1e-6)
    #expect(
      oracle[0].attributes["data-category"]?.hasSuffix(
        String(format: "%.2f%%", stats.revenueEfficiency * 100)) == true)
    let markers = document.elements("line", in: "time-to-ready").filter { $0.attributes["class"] == "marker" }
    #expect(markers.map { $0.attributes["data-label"] ?? "" } == ["p50", "p90", "p99"])
    #expect(
      markers.map { Int(Self.value($0)) }
        == [
          stats.readyLatency.quantile(0.5), stats.readyLatency.quantile(0.9),
          stats.readyLatency.quantile(0.99),
        ])
    let polyline = try #require(document.elements("polyline", in: "time-to-ready").first)
    let shares = (polyline.attributes["points"] ?? "").split(separator: " ").compactMap {
      Double($0.split(separator: ",")[1])
    }
    #expect(shares.count > 100 && zip(shares, shares.dropFirst()).allSatisfy { $0 >= $1 }, "a CDF only rises")
  }

  /// The funnel counts every line item's fate in every auction: one auction per request, one
  /// `loaded` per fill, and the figures drawn are those counts.
  @Test func funnelHoldsEveryLineItemsFates() throws {
    let (stats, settings) = try Self.run()
    let funnel = stats.funnel
    #expect(funnel.auctions == stats.requests)
    let loaded = funnel.counts.values.reduce(0) { $0 + ($1[.loaded] ?? 0) }
    #expect(loaded == stats.fills)
    #expect(funnel.counts.count == settings.zone.lineItems.count)
    for (_, states) in funnel.counts { #expect(states.values.reduce(0, +) == stats.requests) }
    let document = Document(HTMLReport.simulation(stats, settings: settings))
    let segments = document.elements("rect", in: "funnel").filter { $0.attributes["class"] == "segment" }
    var drawn: [String: [String: Int]] = [:]
    for segment in segments {
      drawn[segment.attributes["data-row"] ?? "", default: [:]][segment.attributes["data-state"] ?? ""] =
        Int(segment.attributes["data-count"] ?? "")
    }
    #expect(drawn.count == funnel.counts.count)
    for (key, states) in funnel.counts {
      let row = drawn.first {
        $0.key.contains(key.network.rawValue) && $0.key.hasPrefix("tier \(key.priority)")
          && $0.key.contains(HTMLReport.shortened(key.placementID))
      }
      #expect(
        row?.value == Dictionary(uniqueKeysWithValues: states.map { ($0.key.rawValue, $0.value) }), "\(key)")
    }
  }

  /// Keeping the funnel changes no figure of the run.
  @Test func keepingTheFunnelChangesNoFigure() throws {
    var (with, _) = try Self.run(requests: 6000, keepsFunnel: true)
    let (without, _) = try Self.run(requests: 6000, keepsFunnel: false)
    #expect(with.funnel.auctions == 6000 && without.funnel.auctions == 0)
    with.funnel = WaterfallFunnel()
    #expect(with == without)
  }

  @Test func comparisonReportDrawsEveryDeltaWithItsInterval() throws {
    let zones = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "t")
    let a = try zones.zone("level_complete")
    var b = a
    b.lineItems[0].priority = 1
    let settings = Comparison.Settings(
      a: a, b: b, networks: ["empower", "max", "google"], seed: 1, requests: 1500, replications: 3,
      keepsFunnel: true)
    let result = try Comparison(settings: settings, registry: BuiltInNetworks.registry()).run()
    let html = HTMLReport.comparison(result, settings: settings, sources: ("a.json", "b.json"))
    let document = Document(html)
    #expect(
      document.elements.filter { $0.name == "svg" }.map { $0.attributes["id"] ?? "" }
        == [
          "deltas", "revenue-by-network", "wins-by-network", "oracle", "time-to-ready", "funnel-a",
          "funnel-b",
        ])
    let estimates = document.elements("circle", in: "deltas")
    #expect(estimates.count == ComparedMetric.allCases.count)
    for (metric, estimate) in zip(ComparedMetric.allCases, estimates) {
      let delta = result.delta(metric)
      let base = metric.value(result.a)
      #expect(estimate.attributes["data-metric"] == metric.label)
      #expect(abs(Self.value(estimate) - delta.diff / base) < 1e-6, "\(metric)")
      let ci = try #require(delta.ci95)
      #expect(abs(Self.value(estimate, "data-low") - ci.lowerBound / base) < 1e-6, "\(metric)")
      #expect(abs(Self.value(estimate, "data-high") - ci.upperBound / base) < 1e-6, "\(metric)")
    }
    #expect(html.contains(ComparisonReport(result: result, settings: settings).verdictLine))
    // Both sides in the bar charts, in their colours.
    let series = Set(
      document.elements("rect", in: "revenue-by-network").compactMap { $0.attributes["data-series"] })
    #expect(series == ["A", "B"])
    #expect(document.elements("polyline", in: "time-to-ready").count == 2)
  }

  @Test func reportOptionErrors() {
    let noRequests = mediate(["--report", NSTemporaryDirectory() + "r.html"])
    #expect(noRequests.code == ExitCode.usage)
    #expect(noRequests.err.first == "Error: --report describes a simulation: it needs --requests N")
    let noDirectory = mediate(["--requests", "10", "--report", "/nonexistent/dir/r.html"])
    #expect(noDirectory.code == ExitCode.ioError)
    #expect(
      noDirectory.err.first
        == "Error: /nonexistent/dir/r.html: cannot write the report: no directory /nonexistent/dir")
  }

  @Test func simulatorWritesTheReportAndPrintsTheSameFigures() throws {
    let path = NSTemporaryDirectory() + "mediate-report-\(UUID().uuidString).html"
    let arguments = ["--requests", "2000", "--seed", "5", "--json"]
    let plain = mediate(arguments, registry: BuiltInNetworks.registry())
    let reported = mediate(arguments + ["--report", path], registry: BuiltInNetworks.registry())
    #expect(reported.code == 0)
    #expect(reported.err == ["report: \(path)"])
    #expect(
      NSDictionary(dictionary: try simulationFigures(plain.out.first))
        == NSDictionary(dictionary: try simulationFigures(reported.out.first)))
    let html = try String(contentsOfFile: path, encoding: .utf8)
    #expect(html.hasPrefix("<!DOCTYPE html>"))
    for title in [HTMLReport.Title.revenueByNetwork, HTMLReport.Title.timeToReady, HTMLReport.Title.oracle] {
      #expect(html.contains(title))
    }
  }
}

/// The report's numbers come from a run of an outside configuration: none of them traps.
@Suite("SVG numbers")
struct SVGNumberTests {
  @Test func aCoordinateNoIntHoldsIsWrittenNotATrap() {
    #expect(SVG.n(12.34) == "12.3")
    #expect(SVG.n(12) == "12")
    #expect(SVG.n(.nan) == "0")
    #expect(SVG.n(.infinity) == "0")
    #expect(SVG.n(1e300).hasPrefix("1000000000") && SVG.n(1e300).hasSuffix(".0"))
  }

  @Test func ticksOfAMaximumTooSmallForAStepAreTheEnds() {
    #expect(SVG.ticks(upTo: 10) == [0, 2, 4, 6, 8, 10])
    #expect(SVG.ticks(upTo: .leastNonzeroMagnitude) == [0, .leastNonzeroMagnitude])
    #expect(SVG.ticks(upTo: .greatestFiniteMagnitude).count >= 2)
  }
}
