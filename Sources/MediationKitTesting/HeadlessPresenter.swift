import MediationKit

/// A presenter with nothing to present on: for the CLI, the simulator and tests.
public final class HeadlessPresenter: AdPresenting, Sendable {
  /// Creates a presenter.
  public init() {}
}
