// swift-tools-version:6.2
// 6.2: the oldest compiler the code needs (`isolated deinit`); in Xcode that is Xcode 26.
import PackageDescription

let package = Package(
  name: "MediationKit",
  // The floor an app's deployment target may have; scripts/availability-lint.py keeps newer APIs
  // gated (watchOS is not declared: nothing there has been tried).
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
  products: [
    .library(name: "MediationKit", targets: ["MediationKit"]),
    .library(name: "MediationKitUI", targets: ["MediationKitUI"]),
    .library(name: "MediationKitTesting", targets: ["MediationKitTesting"]),
    .library(name: "MediationKitSimulation", targets: ["MediationKitSimulation"]),
    .library(name: "MediationKitRemoteConfig", targets: ["MediationKitRemoteConfig"]),
    .library(name: "EmpowerSim", targets: ["EmpowerSim"]),
    .library(name: "MaxSim", targets: ["MaxSim"]),
    .library(name: "GoogleSim", targets: ["GoogleSim"]),
    .library(name: "RewardLedgerSQLite", targets: ["RewardLedgerSQLite"]),
    .library(name: "S2SDelivery", targets: ["S2SDelivery"]),
    .library(name: "RewardCrypto", targets: ["RewardCrypto"]),
    .library(name: "RewardCallbacks", targets: ["RewardCallbacks"]),
    .library(name: "ReplayGuardSQLite", targets: ["ReplayGuardSQLite"]),
    .library(name: "ReplayGuardPostgres", targets: ["ReplayGuardPostgres"]),
    .library(name: "MediateCLI", targets: ["MediateCLI"]),
    .executable(name: "mediate", targets: ["mediate"]),
  ],
  targets: [
    .target(name: "MediationKit"),
    // UIKit and SwiftUI bridges; empty where UIKit is missing (Linux CI type-checks them against
    // the stand-ins in Examples/iOSConsumer).
    .target(name: "MediationKitUI", dependencies: ["MediationKit"]),
    .target(name: "MediationKitTesting", dependencies: ["MediationKit"]),
    // What simulated networks and the simulator need and an app never does: the oracle's quotes
    // and the simulated servers' callback sender.
    .target(name: "MediationKitSimulation", dependencies: ["MediationKit"]),
    // zlib (its CRC-32 checks the remote configuration's on-disk cache): in every Apple SDK, and
    // `apt-get install zlib1g-dev` on Linux.
    .systemLibrary(
      name: "CZlib", path: "Sources/CSystemLibraries/CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),
    // Configuration sources: bundled, a file, and remote over HTTPS with a last-known-good cache.
    .target(name: "MediationKitRemoteConfig", dependencies: ["MediationKit", "CZlib"]),
    .target(
      name: "EmpowerSim", dependencies: ["MediationKit", "MediationKitSimulation"],
      path: "Sources/Adapters/EmpowerSim"),
    .target(
      name: "MaxSim", dependencies: ["MediationKit", "MediationKitSimulation", "RewardCallbacks"],
      path: "Sources/Adapters/MaxSim"),
    .target(
      name: "GoogleSim",
      dependencies: ["MediationKit", "MediationKitSimulation", "RewardCallbacks", "RewardCrypto"],
      path: "Sources/Adapters/GoogleSim"),
    .target(
      name: "S2SDelivery", dependencies: ["MediationKit", "MediationKitSimulation"],
      path: "Sources/Adapters/S2SDelivery"),
    .systemLibrary(
      name: "CSQLite3", path: "Sources/CSystemLibraries/CSQLite3", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),
    // The SQLite code the reward ledger and the replay guard share. On Apple platforms SQLite
    // comes from the SDK (`import SQLite3`), elsewhere from the system-library target.
    .target(
      name: "SQLiteSupport",
      dependencies: ["MediationKit", .target(name: "CSQLite3", condition: .when(platforms: [.linux]))]),
    .target(name: "RewardLedgerSQLite", dependencies: ["MediationKit", "SQLiteSupport"]),
    // OpenSSL's libcrypto (hashes, ECDSA, constant-time compare) on Linux: `apt-get install
    // libssl-dev`. On Apple platforms RewardCrypto uses the SDK's CryptoKit instead, behind the same
    // API, so nothing on a Mac or in an app needs OpenSSL.
    .systemLibrary(
      name: "COpenSSLCrypto", path: "Sources/CSystemLibraries/COpenSSLCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    .target(
      name: "RewardCrypto",
      dependencies: [.target(name: "COpenSSLCrypto", condition: .when(platforms: [.linux]))]),
    .target(name: "RewardCallbacks", dependencies: ["RewardCrypto"]),
    .target(
      name: "ReplayGuardSQLite", dependencies: ["MediationKit", "RewardCallbacks", "SQLiteSupport"],
      path: "Sources/ReplayGuards/SQLite"),
    // PostgreSQL's client library, for the replay guard a fleet of servers shares (server-side),
    // and so the CLI. On a Mac Homebrew's libpq is keg-only: PKG_CONFIG_PATH must name
    // `$(brew --prefix libpq)/lib/pkgconfig`; without libpq the shim's #error says what to install.
    .systemLibrary(
      name: "CLibPQ", path: "Sources/CSystemLibraries/CLibPQ", pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
    .target(
      name: "ReplayGuardPostgres", dependencies: ["MediationKit", "RewardCallbacks", "CLibPQ"],
      path: "Sources/ReplayGuards/Postgres"),
    .target(
      name: "MediateCLI",
      dependencies: [
        "MediationKit", "EmpowerSim", "MaxSim", "GoogleSim", "RewardLedgerSQLite", "RewardCallbacks",
        "S2SDelivery", "ReplayGuardSQLite", "ReplayGuardPostgres", "RewardCrypto", "MediationKitSimulation",
        "MediationKitRemoteConfig",
        "MediationKitTesting",
      ]),
    .executableTarget(name: "mediate", dependencies: ["MediateCLI"]),
    .testTarget(name: "MediationKitTests", dependencies: ["MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "MediationKitSimulationTests",
      dependencies: ["MediationKitSimulation", "MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "EmpowerSimTests",
      dependencies: ["EmpowerSim", "MediationKit", "MediationKitTesting", "MediationKitSimulation"]),
    .testTarget(
      name: "MaxSimTests",
      dependencies: [
        "MaxSim", "MediationKit", "MediationKitTesting", "RewardCallbacks", "MediationKitSimulation",
      ]),
    .testTarget(
      name: "GoogleSimTests",
      dependencies: [
        "GoogleSim", "MediationKit", "MediationKitTesting", "RewardCallbacks", "RewardCrypto",
        "MediationKitSimulation",
      ]),
    .testTarget(
      name: "S2SDeliveryTests",
      dependencies: [
        "S2SDelivery", "MediationKit", "MediationKitTesting", "MaxSim", "GoogleSim", "RewardCallbacks",
        "MediationKitSimulation",
      ]),
    .testTarget(
      name: "RewardLedgerSQLiteTests",
      dependencies: [
        "RewardLedgerSQLite", "MediationKit", "SQLiteSupport", "StoreTestSupport", "MediationKitTesting",
      ]),
    // Helpers the SQLite stores' test targets share (a temporary directory, a manual wall clock).
    .target(
      name: "StoreTestSupport", dependencies: ["MediationKit", "SQLiteSupport"],
      path: "Tests/StoreTestSupport"),
    .testTarget(
      name: "ReplayGuardSQLiteTests",
      dependencies: [
        "ReplayGuardSQLite", "RewardLedgerSQLite", "MediationKit", "SQLiteSupport", "RewardCallbacks",
        "RewardCrypto", "StoreTestSupport",
      ]),
    .testTarget(
      name: "MediateCLITests",
      dependencies: [
        "MediateCLI", "MediationKit", "MediationKitTesting", "RewardLedgerSQLite", "RewardCallbacks",
        "RewardCrypto", "S2SDelivery", "SQLiteSupport", "ReplayGuardSQLite", "ReplayGuardPostgres",
        "MediationKitSimulation",
      ]),
    .testTarget(name: "RewardCryptoTests", dependencies: ["RewardCrypto"]),
    .testTarget(
      name: "MediationKitRemoteConfigTests",
      dependencies: ["MediationKitRemoteConfig", "MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "ReplayGuardPostgresTests",
      dependencies: [
        "ReplayGuardPostgres", "MediationKit", "RewardCallbacks", "StoreTestSupport", "ReplayGuardClaimer",
      ]),
    // A test helper: one server of a fleet claiming ids in a shared PostgreSQL replay guard.
    .executableTarget(
      name: "ReplayGuardClaimer", dependencies: ["ReplayGuardPostgres"], path: "Tests/ReplayGuardClaimer"),
    .testTarget(name: "RewardCallbacksTests", dependencies: ["RewardCallbacks", "RewardCrypto"]),
  ],
  swiftLanguageModes: [.v6]
)
