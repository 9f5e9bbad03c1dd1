import Foundation
import MediationKit

/// `--market FILE` as the simulator, `compare` and `optimize` read it.
struct LoadedMarket {
  var path: String
  /// What the simulated networks do.
  var market: SimulatedMarket
  /// For a market file: the file (one segment of it with `--segment`), whose counts say how well
  /// it is known.
  var file: MarketFile?

  var prices: MarketPrices? {
    if case .prices(let prices) = market { prices } else { nil }
  }

  var calibrated: CalibratedMarket? { market.calibrated }
}

extension CommandContext {
  /// `--market FILE` for `zone`, and with it `--segment VALUE` (or `--country CC`): a configuration
  /// file, whose zone of the same id prices the line items (the networks keep their built-in fill
  /// and latency), or a market file (``MarketFile``) for this zone, whose line items fill, price
  /// and answer as it says — in one segment of it with `--segment`. Line items of the zone the
  /// market does not list keep their network's built-in behaviour, which a note on stderr says.
  func loadMarket(for zone: ZoneConfig) throws(CLIError) -> LoadedMarket? {
    let command = arguments.command
    let segment = try segmentOption()
    guard let path = arguments.value(.market) else {
      if segment != nil { throw .usage("--segment and --country choose a segment of --market FILE", command) }
      return nil
    }
    guard let data = FileManager.default.contents(atPath: path) else { throw .noInput(path) }
    guard MarketFile.isMarketFile(data) else {
      if segment != nil {
        throw .usage("--market \(path) is a configuration file: it has no segments to choose from", command)
      }
      let config = try CommandContext.loadConfig(path: path, knownNetworks: registry.networkIDs)
      do {
        return LoadedMarket(
          path: path, market: .prices(MarketPrices(zone: try config.zone(zone.id))), file: nil)
      } catch {
        throw .usage("--market \(path): \(error.message)", command)
      }
    }
    var file = try MarketFile.read(data, source: path)
    guard file.zone == zone.id else {
      throw .usage("--market \(path) is the market of zone '\(file.zone)', not of zone '\(zone.id)'", command)
    }
    if let (dimension, value) = segment {
      file = try file.selecting(dimension: dimension, value: value, path: path, command: command)
    }
    let unsupported = file.model.unsupportedNetworks
    guard unsupported.isEmpty else {
      throw .usage(
        "--market \(path) lists line items of \(unsupported.map(\.rawValue).joined(separator: ", ")), which mediate "
          + "cannot simulate from a market (it simulates \(BuiltInNetworks.allIDs.map(\.rawValue).joined(separator: ", ")))",
        command)
    }
    let listed = Set(file.lineItems.map { "\($0.network) \($0.placementID)" })
    for (index, item) in zone.lineItems.enumerated()
    where !listed.contains("\(item.network) \(item.placementId)") {
      output.err(
        "note: --market \(path) does not list lineItems[\(index)] (\(item.network) \(item.placementId)): it keeps "
          + "the simulated network's built-in behaviour")
    }
    return LoadedMarket(path: path, market: .calibrated(file.model), file: file)
  }

  /// `--segment VALUE`, or `--country CC` (a segment of a market segmented by country).
  func segmentOption() throws(CLIError) -> (dimension: String?, value: String)? {
    let command = arguments.command
    let country = arguments.value(.country)
    let segment = arguments.value(.segment)
    if country != nil && segment != nil { throw .usage("give --segment or --country, not both", command) }
    if let country {
      let code = country.trimmingCharacters(in: .whitespaces).uppercased()
      guard code.count == 2, code.allSatisfy({ ("A"..."Z").contains($0) }) else {
        throw .usage(
          "invalid value '\(country)' for --country: expected a two-letter country code (US, GB, …)", command)
      }
      return ("country", code)
    }
    return segment.map { (nil, $0) }
  }
}

extension MarketFile {
  /// This market with all its traffic in segment `value` (of `dimension`, when given).
  func selecting(dimension: String?, value: String, path: String, command: Command) throws(CLIError)
    -> MarketFile
  {
    guard let segmentBy else {
      throw .usage(
        "--market \(path) has no segments: its data was not split by country or another dimension", command)
    }
    if let dimension, dimension != segmentBy {
      throw .usage(
        "--market \(path) is segmented by \(segmentBy), not by \(dimension); use --segment VALUE", command)
    }
    guard let segment = segments.first(where: { $0.name == value }) else {
      throw .usage(
        "--market \(path) has no \(segmentBy) '\(value)'; its segments: "
          + segments.map(\.name).joined(separator: ", "), command)
    }
    var market = self
    market.segments = [Segment(name: segment.name, share: 1, auctions: nil)]
    return market
  }
}

extension CommandContext {
  /// The default number of resampled markets for a market file that counts its data.
  static let defaultCalibrationResamples = 10

  /// `--calibration-resamples K` (0…200): by default 10 for a market file that counts its data,
  /// else 0; asked for without such a market, a usage error.
  func calibrationResamples(_ market: LoadedMarket?) throws(CLIError) -> Int {
    let command = arguments.command
    let counted = market?.file?.hasSampleSizes == true
    guard arguments.value(.calibrationResamples) != nil else {
      return counted ? Self.defaultCalibrationResamples : 0
    }
    let count = try wholeNumber(.calibrationResamples, default: 0, range: 0...200, command)
    guard counted || count == 0 else {
      throw .usage(
        "--calibration-resamples needs --market FILE with a market file whose figures count their data "
          + "(one mediate calibrate wrote)", command)
    }
    return count
  }
}
