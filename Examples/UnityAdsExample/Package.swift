// swift-tools-version:6.0
import PackageDescription

// A fourth simulated network — Unity Ads-style, completion-state callbacks — added from outside
// MediationKit: this package depends on the root package by path and changes none of it.
let package = Package(
  name: "UnityAdsExample",
  // MediationKit's floor: a package depending on it cannot declare a lower one.
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
  products: [
    .library(name: "UnitySim", targets: ["UnitySim"]),
    .executable(name: "mediate-unity", targets: ["mediate-unity"]),
  ],
  dependencies: [
    // `name:` pins the dependency's name: without it, SwiftPM names a path dependency after its
    // directory (the clone's folder, which varies), and `package: "MediationKit"` would not resolve.
    .package(name: "MediationKit", path: "../..")
  ],
  targets: [
    .target(
      name: "UnitySim",
      dependencies: [
        .product(name: "MediationKit", package: "MediationKit"),
        // `SimulatedNetwork`: the simulator's oracle asks the adapter what a load would answer.
        .product(name: "MediationKitSimulation", package: "MediationKit"),
      ]),
    .executableTarget(
      name: "mediate-unity",
      dependencies: [
        "UnitySim",
        .product(name: "MediateCLI", package: "MediationKit"),
        .product(name: "MediationKit", package: "MediationKit"),
        .product(name: "MediationKitSimulation", package: "MediationKit"),
      ]),
    .testTarget(
      name: "UnitySimTests",
      dependencies: [
        "UnitySim",
        .product(name: "MediationKit", package: "MediationKit"),
        .product(name: "MediationKitTesting", package: "MediationKit"),
        .product(name: "MediateCLI", package: "MediationKit"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
