// swift-tools-version:6.2
import PackageDescription

// An iOS app's use of MediationKit, built on Linux: the README's UIKit, SwiftUI and async samples
// (Sources/AppSamples), compiled in Swift 6 mode and again under Xcode 26's default main-actor
// isolation (Sources/AppSamplesMainActorByDefault links to the same files), against stand-in
// UIKit and SwiftUI modules that declare what the samples and MediationKitUI use, with the iOS
// SDK's isolation.
//
// MediationKit, MediationKitUI, EmpowerSim and MediationKitSimulation (which the simulated
// EmpowerSim uses for the simulator's oracle) are the root package's own source folders, by path
// (symbolic links under Sources/): MediationKitUI compiles only where `UIKit` can be imported, so
// it has to be built here, next to the stand-ins, and SwiftPM does not allow a second target of
// that name in a graph that also holds the root package.
let package = Package(
  name: "iOSConsumer",
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
  targets: [
    .target(name: "UIKit", path: "StandIns/UIKit"),
    .target(name: "SwiftUI", dependencies: ["UIKit"], path: "StandIns/SwiftUI"),
    // The SDK's `os` module, for MediationKit's `#if canImport(os)` logging (`os.Logger`).
    .target(name: "os", path: "StandIns/os"),
    // The SDK's SQLite3 module is a Clang module over <sqlite3.h>; this is the same over the
    // system's header, so SQLiteSupport compiles its `#if canImport(SQLite3)` branch here.
    .systemLibrary(name: "SQLite3", path: "StandIns/SQLite3"),
    .target(name: "MediationKit", dependencies: ["os"]),
    .target(name: "MediationKitSimulation", dependencies: ["MediationKit"]),
    .target(name: "EmpowerSim", dependencies: ["MediationKit", "MediationKitSimulation"]),
    .target(name: "MediationKitUI", dependencies: ["UIKit", "SwiftUI", "MediationKit"]),
    .target(name: "SQLiteSupport", dependencies: ["MediationKit", "SQLite3"]),
    .target(name: "RewardLedgerSQLite", dependencies: ["MediationKit", "SQLiteSupport"]),
    .target(
      name: "AppSamples",
      dependencies: [
        "UIKit", "SwiftUI", "MediationKitUI", "MediationKit", "EmpowerSim",
      ]),
    .target(
      name: "AppSamplesMainActorByDefault",
      dependencies: [
        "UIKit", "SwiftUI", "MediationKitUI", "MediationKit", "EmpowerSim",
      ],
      swiftSettings: [.defaultIsolation(MainActor.self)]),
  ],
  swiftLanguageModes: [.v6]
)
