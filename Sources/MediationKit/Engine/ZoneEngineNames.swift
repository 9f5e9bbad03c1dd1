// The zone engine's types spell some of the nested 2.0 types by their short names. A member type
// alias is found before a top-level one, so these keep those spellings meaning the 2.0 types
// inside the engine, without the deprecation warning of the 1.x top-level aliases of the same names.

extension ZoneController {
  typealias NetworkReward = AdapterSignal.NetworkReward
  typealias ImpressionRevenue = AdapterSignal.ImpressionRevenue
  typealias RevenuePrecision = AdapterSignal.RevenuePrecision
  typealias AdapterSignalSink = AdapterSignal.Sink
  typealias AdapterShowID = AdapterSignal.Sink.ShowID
  typealias AdapterWithdrawalSink = AdapterWithdrawal.Sink
  typealias LineItem = ZoneConfig.LineItem
  typealias NetworkResponse = AdInfo.NetworkResponse
  typealias Diagnostic = RewardedAdEvent.Diagnostic
}

extension ZoneSetup {
  typealias LineItem = ZoneConfig.LineItem
}

extension FrequencyCapCheck {
  typealias FrequencyCaps = ZoneConfig.FrequencyCaps
}

extension AdapterLoadRequest {
  typealias LineItem = ZoneConfig.LineItem
  typealias AdapterWithdrawalSink = AdapterWithdrawal.Sink
}
