import CZlib
import Foundation
import MediationKit

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The on-disk state of a ``RemoteConfigSource``: one file per cache directory holding the
/// last-known-good configuration, the *candidate* (a fetched configuration the app has not yet
/// confirmed it ran on), and the fingerprints of candidates that never ran, each body exactly as
/// the server sent it with its `ETag` and when it was saved, plus the configuration URL and one
/// CRC-32 over all of it (metadata included, so an edited `ETag` or date is refused too).
///
/// Why a CRC-32 from zlib: the file guards against damage (a torn write, a disk or sync tool
/// flipping bytes, a hand edit), not against an attacker who can write the app's files anyway, so
/// a checksum is enough and a cryptographic hash would buy nothing; zlib is in every Apple SDK and
/// every Linux, with no OpenSSL in an app. The checksum is computed over a fixed byte layout of the
/// fields (not over the JSON text), so it does not depend on how a JSON encoder spells things.
///
/// The file is replaced atomically: written to a temporary file of this cache's own naming beside
/// it, flushed, then renamed over it, so a reader sees the old file or the new one, never half of
/// one. Temporary files a killed process left behind are removed when the source starts. Only a
/// regular file at the cache's own file name is ever replaced or removed: a directory, symbolic
/// link, FIFO or device there is reported (``ConfigFetchFailure/cacheUnusable(_:)``) and left alone.
struct LastKnownGoodCache: Sendable {
  /// One cached configuration.
  struct Entry: Sendable, Equatable {
    var body: Data
    var etag: String?
    var savedAt: Date
  }

  /// What identifies a body without keeping it: its length and CRC-32.
  struct Fingerprint: Codable, Sendable, Equatable {
    var length: Int
    var crc32: UInt32

    init(_ body: Data) {
      self.length = body.count
      self.crc32 = LastKnownGoodCache.crc32(body)
    }
  }

  /// Everything the file holds.
  struct State: Sendable, Equatable {
    /// The configuration the app last ran on (confirmed), if any.
    var lastKnownGood: Entry?
    /// A fetched configuration put in use and not yet confirmed.
    var candidate: Entry?
    /// Candidates that were put in use and never confirmed (the run ended first), newest last, at
    /// most ``LastKnownGoodCache/refusedLimit``: a server answer with one of these bodies is refused.
    var refused: [Fingerprint] = []
  }

  /// The file's layout (JSON; bodies in base64).
  private struct File: Codable {
    var format: Int
    var url: String
    var lastKnownGood: StoredEntry?
    var candidate: StoredEntry?
    var refused: [Fingerprint]
    var crc32: UInt32
  }

  private struct StoredEntry: Codable {
    var etag: String?
    var savedAt: Double
    var length: Int
    var body: Data
  }

  static let fileName = "mediationkit-remote-config.json"
  /// Temporary files are named `.<fileName>.<pid>-<n>.tmp`: only names of this shape are removed.
  static let temporaryPrefix = "." + fileName + "."
  static let temporarySuffix = ".tmp"
  /// A temporary file older than this at start-up belongs to a write that never finished.
  static let staleTemporaryAge: TimeInterval = 600
  static let refusedLimit = 16
  private static let format = 2
  /// The latest `savedAt` accepted: the end of year 9999.
  private static let latestSavedAt: Double = 253_402_300_799

  let fileURL: URL
  /// The configuration URL: a file filled from another URL is not served for this one.
  let sourceURL: URL
  /// The largest file read, in bytes: a file larger than two bodies at the size limit is not ours.
  let maxFileBytes: Int

  init(directory: URL, sourceURL: URL, maxBodyBytes: Int) {
    self.fileURL = directory.appendingPathComponent(Self.fileName)
    self.sourceURL = sourceURL
    let base64 = (max(0, min(maxBodyBytes, Int.max / 8)) / 3 + 1) * 4
    self.maxFileBytes = 2 * base64 + 64 * 1024
  }

  /// What is at `path`, without following a symbolic link: `nil` when nothing is.
  private static func kind(atPath path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
  }

  private static func describe(kind: mode_t) -> String {
    switch kind {
    case S_IFDIR: "a directory"
    case S_IFLNK: "a symbolic link"
    case S_IFIFO: "a FIFO"
    case S_IFCHR, S_IFBLK: "a device"
    case S_IFSOCK: "a socket"
    default: "not a regular file"
    }
  }

  /// Why the cache's own path cannot be used, when something other than a regular file is there.
  private func unusablePath() -> ConfigFetchFailure? {
    guard let kind = Self.kind(atPath: fileURL.path), kind != S_IFREG else { return nil }
    return .cacheUnusable(
      "\(fileURL.path) is \(Self.describe(kind: kind)), not a cache file MediationKit wrote; it is left alone"
    )
  }

  /// The cached state, or why there is none usable (``ConfigFetchFailure/noCache``,
  /// ``ConfigFetchFailure/corruptCache(_:)``, ``ConfigFetchFailure/cacheUnusable(_:)``,
  /// ``ConfigFetchFailure/cacheForAnotherURL(_:)``).
  func read() -> Result<State, ConfigFetchFailure> {
    let path = fileURL.path
    guard Self.kind(atPath: path) != nil else { return .failure(.noCache) }
    if let unusable = unusablePath() { return .failure(unusable) }
    guard let handle = FileHandle(forReadingAtPath: path) else {
      return .failure(.corruptCache("\(path) cannot be read"))
    }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: maxFileBytes + 1) ?? Data() else {
      return .failure(.corruptCache("\(path) cannot be read"))
    }
    guard data.count <= maxFileBytes else {
      return .failure(.corruptCache("\(path) is larger than \(maxFileBytes) bytes"))
    }
    guard let file = try? JSONDecoder().decode(File.self, from: data) else {
      return .failure(.corruptCache("\(path) is not a cache file MediationKit wrote"))
    }
    guard file.format == Self.format else {
      return .failure(.corruptCache("\(path) has format \(file.format), expected \(Self.format)"))
    }
    guard file.crc32 == Self.checksum(file) else {
      return .failure(.corruptCache("\(path): checksum mismatch (the file was damaged or edited)"))
    }
    guard file.url == sourceURL.absoluteString else {
      return .failure(.cacheForAnotherURL(file.url))
    }
    var entries: [Entry?] = []
    for (name, stored) in [("lastKnownGood", file.lastKnownGood), ("candidate", file.candidate)] {
      guard let stored else {
        entries.append(nil)
        continue
      }
      guard stored.body.count == stored.length else {
        return .failure(
          .corruptCache("\(path): \(name) body is \(stored.body.count) bytes, the file says \(stored.length)")
        )
      }
      guard stored.savedAt.isFinite, (0...Self.latestSavedAt).contains(stored.savedAt) else {
        return .failure(.corruptCache("\(path): \(name) savedAt \(stored.savedAt) is not a date"))
      }
      entries.append(
        Entry(body: stored.body, etag: stored.etag, savedAt: Date(timeIntervalSince1970: stored.savedAt)))
    }
    return .success(
      State(
        lastKnownGood: entries[0], candidate: entries[1],
        refused: Array(file.refused.suffix(Self.refusedLimit)))
    )
  }

  /// Replaces the file atomically with `state` (or, when `state` is empty, leaves no file).
  /// - Returns: Why it could not be written, if it could not: the file on disk is then unchanged.
  func write(_ state: State) -> ConfigFetchFailure? {
    if let unusable = unusablePath() { return unusable }
    func stored(_ entry: Entry?) -> StoredEntry? {
      entry.map {
        StoredEntry(
          etag: $0.etag, savedAt: $0.savedAt.timeIntervalSince1970, length: $0.body.count, body: $0.body)
      }
    }
    var file = File(
      format: Self.format, url: sourceURL.absoluteString, lastKnownGood: stored(state.lastKnownGood),
      candidate: stored(state.candidate), refused: Array(state.refused.suffix(Self.refusedLimit)), crc32: 0)
    file.crc32 = Self.checksum(file)
    let directory = fileURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try Self.replaceAtomically(fileURL, with: JSONEncoder().encode(file))
      return nil
    } catch let error as WriteError {
      return .cacheWriteFailed("cannot write \(fileURL.path): \(error.message)")
    } catch {
      return .cacheWriteFailed("cannot write \(fileURL.path): \(error.localizedDescription)")
    }
  }

  /// Removes a damaged file so it is not read again: only a regular file, never a directory's contents.
  func remove() {
    guard Self.kind(atPath: fileURL.path) == S_IFREG else { return }
    unlink(fileURL.path)
  }

  /// Removes the temporary files of this cache's naming that are older than
  /// ``staleTemporaryAge`` at `now` (a write killed between creating and renaming one); a younger
  /// one may be another process's write in progress.
  func removeStaleTemporaryFiles(now: Date) {
    let directory = fileURL.deletingLastPathComponent().path
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
    for name in names where name.hasPrefix(Self.temporaryPrefix) && name.hasSuffix(Self.temporarySuffix) {
      let path = directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
      #if canImport(Darwin)
        let modified = TimeInterval(info.st_mtimespec.tv_sec)
      #else
        let modified = TimeInterval(info.st_mtim.tv_sec)
      #endif
      if now.timeIntervalSince1970 - modified > Self.staleTemporaryAge { unlink(path) }
    }
  }

  private struct WriteError: Error {
    var message: String
    init(_ operation: String, code: Int32 = errno) {
      message = "\(operation): \(String(cString: strerror(code)))"
    }
  }

  /// Numbers this process's temporary files (with the pid, unique across processes).
  private static let temporaryCounter = Locked<UInt64>(0)

  /// Writes `data` to a new temporary file beside `url`, flushes it, and renames it over `url`.
  private static func replaceAtomically(_ url: URL, with data: Data) throws(WriteError) {
    let number = temporaryCounter.withLock { counter -> UInt64 in
      counter &+= 1
      return counter
    }
    let temporary =
      url.deletingLastPathComponent().path + "/" + temporaryPrefix + "\(getpid())-\(number)" + temporarySuffix
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw WriteError("create \(temporary)") }
    var failure: WriteError?
    do {
      try writeAllAndFlush(data, to: descriptor)
    } catch {
      failure = WriteError(
        error.step == .write ? "write \(temporary)" : "flush \(temporary)", code: error.code)
    }
    close(descriptor)
    if failure == nil && rename(temporary, url.path) != 0 { failure = WriteError("rename onto \(url.path)") }
    if let failure {
      unlink(temporary)
      throw failure
    }
  }

  /// The CRC-32 of the file's fields in a fixed layout: each field length-prefixed, so no two
  /// different files share a layout.
  private static func checksum(_ file: File) -> UInt32 {
    var bytes = Data()
    func append(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    func append(_ data: Data) {
      append(UInt64(data.count))
      bytes.append(data)
    }
    func append(_ text: String?) {
      guard let text else { return append(UInt64.max) }
      append(Data(text.utf8))
    }
    func append(_ entry: StoredEntry?) {
      guard let entry else { return append(UInt64.max) }
      append(entry.etag)
      append(entry.savedAt.bitPattern)
      append(UInt64(truncatingIfNeeded: entry.length))
      append(entry.body)
    }
    append(UInt64(truncatingIfNeeded: file.format))
    append(file.url)
    append(file.lastKnownGood)
    append(file.candidate)
    append(UInt64(file.refused.count))
    for fingerprint in file.refused {
      append(UInt64(truncatingIfNeeded: fingerprint.length))
      append(UInt64(fingerprint.crc32))
    }
    return crc32(bytes)
  }

  /// zlib's CRC-32 of `data`.
  static func crc32(_ data: Data) -> UInt32 {
    data.withUnsafeBytes { buffer in
      var crc = CZlib.crc32(0, nil, 0)
      var rest = UnsafeRawBufferPointer(buffer)
      // zlib takes a 32-bit length: feed larger bodies in chunks.
      while let base = rest.baseAddress, !rest.isEmpty {
        let count = min(rest.count, Int(UInt32.max))
        crc = CZlib.crc32(crc, base.assumingMemoryBound(to: Bytef.self), uInt(count))
        rest = UnsafeRawBufferPointer(rebasing: rest[count...])
      }
      return UInt32(truncatingIfNeeded: crc)
    }
  }
}
