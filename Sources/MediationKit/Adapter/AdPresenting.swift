/// Whatever a full-screen ad is presented from.
///
/// On Apple platforms `UIViewController` conforms through `MediationKitUI`; on Linux, and in tests,
/// any class can adopt it.
/// The simulated vendor SDKs take an `AdPresenting` wherever the real SDK takes a
/// `UIViewController`, so code written from a vendor guide compiles with only that substitution.
public protocol AdPresenting: AnyObject {}
