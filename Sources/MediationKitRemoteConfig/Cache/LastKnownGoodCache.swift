import CZlib
import Foundation
import MediationKit

/// The on-disk copy of the last good remote configuration: one file per cache directory, holding
/// the body exactly as the server sent it, its `ETag`, the configuration URL, when it was saved,
/// and the body's length and CRC-32.
///
/// Why a CRC-32 from zlib: the file guards against damage (a torn write, a disk or sync tool
/// flipping bytes), not against an attacker who can write the app's files anyway, so a checksum
/// is enough and a cryptographic hash would buy nothing; zlib is in every Apple SDK and every
/// Linux, with no OpenSSL in an app. Re-validating the configuration on load alone would miss a
/// flipped digit inside a number, which still decodes; the length catches truncation first with
/// a clearer message.
///
/// Written with `Data.write(options: .atomic)`, which writes a temporary file beside the target
/// and renames it over the target, so a reader sees the old file or the new one, never half of one.
struct LastKnownGoodCache: Sendable {
  /// One cached configuration.
  struct Entry: Sendable, Equatable {
    var body: Data
    var etag: String?
    var savedAt: Date
  }

  /// The file's layout (JSON; the body in base64).
  private struct File: Codable {
    var format: Int
    var url: String
    var etag: String?
    var savedAt: Date
    var length: Int
    var crc32: UInt32
    var body: Data
  }

  static let fileName = "mediationkit-remote-config.json"
  private static let format = 1

  let fileURL: URL
  /// The configuration URL, recorded in the file for whoever inspects it. A cache directory belongs
  /// to one configuration (a server may move, e.g. between test ports, and keep its cache).
  let sourceURL: URL

  init(directory: URL, sourceURL: URL) {
    self.fileURL = directory.appendingPathComponent(Self.fileName)
    self.sourceURL = sourceURL
  }

  /// The cached copy, or why there is none usable (``ConfigFetchFailure/noCache``,
  /// ``ConfigFetchFailure/corruptCache(_:)``).
  func read() -> Result<Entry, ConfigFetchFailure> {
    guard FileManager.default.fileExists(atPath: fileURL.path) else { return .failure(.noCache) }
    guard let data = try? Data(contentsOf: fileURL) else {
      return .failure(.corruptCache("\(fileURL.path) cannot be read"))
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    guard let file = try? decoder.decode(File.self, from: data) else {
      return .failure(.corruptCache("\(fileURL.path) is not a cache file MediationKit wrote"))
    }
    guard file.format == Self.format else {
      return .failure(.corruptCache("\(fileURL.path) has format \(file.format), expected \(Self.format)"))
    }
    guard file.body.count == file.length else {
      return .failure(
        .corruptCache("\(fileURL.path): body is \(file.body.count) bytes, the file says \(file.length)"))
    }
    guard Self.crc32(file.body) == file.crc32 else {
      return .failure(.corruptCache("\(fileURL.path): checksum mismatch (the body was damaged)"))
    }
    return .success(Entry(body: file.body, etag: file.etag, savedAt: file.savedAt))
  }

  /// Replaces the cached copy atomically.
  /// - Returns: Why it could not be written, if it could not.
  func write(_ entry: Entry) -> String? {
    let file = File(
      format: Self.format, url: sourceURL.absoluteString, etag: entry.etag, savedAt: entry.savedAt,
      length: entry.body.count, crc32: Self.crc32(entry.body), body: entry.body)
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    do {
      let directory = fileURL.deletingLastPathComponent()
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try encoder.encode(file).write(to: fileURL, options: .atomic)
      return nil
    } catch {
      return "cannot write \(fileURL.path): \(error.localizedDescription)"
    }
  }

  /// Removes a damaged copy so it is not read again.
  func remove() {
    try? FileManager.default.removeItem(at: fileURL)
  }

  /// zlib's CRC-32 of `data`.
  static func crc32(_ data: Data) -> UInt32 {
    data.withUnsafeBytes { buffer in
      var crc = CZlib.crc32(0, nil, 0)
      var rest = UnsafeRawBufferPointer(buffer)
      // zlib takes a 32-bit length: feed larger bodies in chunks.
      while !rest.isEmpty {
        let count = min(rest.count, Int(UInt32.max))
        crc = CZlib.crc32(crc, rest.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(count))
        rest = UnsafeRawBufferPointer(rebasing: rest[count...])
      }
      return UInt32(truncatingIfNeeded: crc)
    }
  }
}
