// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "MediationKit",
  products: [
    .library(name: "MediationKit", targets: ["MediationKit"]),
    .library(name: "MediationKitTesting", targets: ["MediationKitTesting"]),
    .library(name: "EmpowerSim", targets: ["EmpowerSim"]),
    .library(name: "MaxSim", targets: ["MaxSim"]),
    .library(name: "GoogleSim", targets: ["GoogleSim"]),
    .library(name: "RewardLedgerSQLite", targets: ["RewardLedgerSQLite"]),
    .library(name: "RewardCrypto", targets: ["RewardCrypto"]),
    .library(name: "RewardCallbacks", targets: ["RewardCallbacks"]),
    .library(name: "MediateCLI", targets: ["MediateCLI"]),
    .executable(name: "mediate", targets: ["mediate"]),
  ],
  targets: [
    .target(name: "MediationKit"),
    .target(name: "MediationKitTesting", dependencies: ["MediationKit"]),
    .target(name: "EmpowerSim", dependencies: ["MediationKit"], path: "Sources/Adapters/EmpowerSim"),
    .target(name: "MaxSim", dependencies: ["MediationKit"], path: "Sources/Adapters/MaxSim"),
    .target(name: "GoogleSim", dependencies: ["MediationKit"], path: "Sources/Adapters/GoogleSim"),
    .systemLibrary(
      name: "CSQLite3", path: "Sources/CSystemLibraries/CSQLite3", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "RewardLedgerSQLite", dependencies: ["MediationKit", "CSQLite3"]),
    // OpenSSL's libcrypto (hashes, ECDSA, constant-time compare): `apt-get install libssl-dev`.
    .systemLibrary(
      name: "COpenSSLCrypto", path: "Sources/CSystemLibraries/COpenSSLCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    .target(name: "RewardCrypto", dependencies: ["COpenSSLCrypto"]),
    .target(name: "RewardCallbacks", dependencies: ["RewardCrypto"]),
    .target(
      name: "MediateCLI",
      dependencies: [
        "MediationKit", "EmpowerSim", "MaxSim", "GoogleSim", "RewardLedgerSQLite", "RewardCallbacks",
      ]),
    .executableTarget(name: "mediate", dependencies: ["MediateCLI"]),
    .testTarget(name: "MediationKitTests", dependencies: ["MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "EmpowerSimTests", dependencies: ["EmpowerSim", "MediationKit", "MediationKitTesting"]),
    .testTarget(name: "MaxSimTests", dependencies: ["MaxSim", "MediationKit", "MediationKitTesting"]),
    .testTarget(name: "GoogleSimTests", dependencies: ["GoogleSim", "MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "RewardLedgerSQLiteTests", dependencies: ["RewardLedgerSQLite", "MediationKit", "CSQLite3"]),
    .testTarget(
      name: "MediateCLITests",
      dependencies: [
        "MediateCLI", "MediationKit", "MediationKitTesting", "RewardLedgerSQLite", "RewardCallbacks",
        "RewardCrypto",
      ]),
    .testTarget(name: "RewardCryptoTests", dependencies: ["RewardCrypto"]),
    .testTarget(name: "RewardCallbacksTests", dependencies: ["RewardCallbacks", "RewardCrypto"]),
  ],
  swiftLanguageModes: [.v6]
)
