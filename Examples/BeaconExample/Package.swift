// swift-tools-version:6.0
import PackageDescription

// A fifth simulated network — availability-based, one global listener, rewards after the close —
// added from outside MediationKit: this package depends on the root package by path and changes
// none of it.
let package = Package(
  name: "BeaconExample",
  // MediationKit's floor: a package depending on it cannot declare a lower one.
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
  products: [.library(name: "BeaconSim", targets: ["BeaconSim"])],
  dependencies: [
    // `name:` pins the dependency's name (a path dependency is otherwise named after its folder).
    .package(name: "MediationKit", path: "../..")
  ],
  targets: [
    .target(name: "BeaconSim", dependencies: [.product(name: "MediationKit", package: "MediationKit")]),
    .testTarget(
      name: "BeaconSimTests",
      dependencies: [
        "BeaconSim",
        .product(name: "MediationKit", package: "MediationKit"),
        .product(name: "MediationKitSimulation", package: "MediationKit"),
        .product(name: "MediationKitTesting", package: "MediationKit"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
