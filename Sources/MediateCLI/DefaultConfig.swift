/// The configuration `mediate` uses when no `--config` is given: four zones in which all three
/// simulated networks compete at different priorities and eCPMs — two waterfalls (whose MAX and
/// Google line items can also bid, for `--strategy bidding|hybrid`), a hybrid zone and a bidding
/// zone with frequency caps.
enum DefaultConfig {
  static let json = #"""
    {
      "zones": [
        {
          "id": "level_complete",
          "reward": { "type": "coins", "amount": 100 },
          "loadTimeoutSeconds": 30, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
          "lineItems": [
            { "network": "empower", "placementId": "emp-level-complete-high", "priority": 0, "ecpm": 14.0, "timeoutSeconds": 8 },
            { "network": "max", "placementId": "b3f1c0d2e4a59687", "priority": 0, "ecpm": 12.5, "timeoutSeconds": 8, "bidding": true, "bidFloor": 2 },
            { "network": "google", "placementId": "ca-app-pub-3940256099942544/1712485313", "priority": 1, "ecpm": 9.0, "timeoutSeconds": 8, "bidding": true, "bidFloor": 2 },
            { "network": "empower", "placementId": "emp-level-complete-floor", "priority": 2, "ecpm": 3.0, "timeoutSeconds": 8 }
          ]
        },
        {
          "id": "daily_bonus",
          "reward": { "type": "gems", "amount": 5 },
          "loadTimeoutSeconds": 25, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
          "strategy": "hybrid", "auctionTimeoutSeconds": 2,
          "lineItems": [
            { "network": "max", "placementId": "7c2e9a41d0b36f58", "priority": 0, "ecpm": 20.0, "timeoutSeconds": 6, "bidding": true, "bidFloor": 5 },
            { "network": "google", "placementId": "ca-app-pub-3940256099942544/5224354917", "priority": 0, "ecpm": 18.0, "timeoutSeconds": 6, "bidding": true, "bidFloor": 5 },
            { "network": "empower", "placementId": "emp-daily-bonus", "priority": 1, "ecpm": 8.0, "timeoutSeconds": 6 }
          ]
        },
        {
          "id": "extra_life",
          "reward": { "type": "lives", "amount": 1 },
          "loadTimeoutSeconds": 20, "adExpirySeconds": 1800, "rewardGraceSeconds": 3, "autoReload": false,
          "lineItems": [
            { "network": "google", "placementId": "ca-app-pub-3940256099942544/6978759866", "priority": 0, "ecpm": 7.0, "timeoutSeconds": 5 },
            { "network": "empower", "placementId": "emp-extra-life", "priority": 0, "ecpm": 7.0, "timeoutSeconds": 5 },
            { "network": "max", "placementId": "e5d4c3b2a1908f7e", "priority": 1, "ecpm": 5.0, "timeoutSeconds": 5 }
          ]
        },
        {
          "id": "store_coins",
          "reward": { "type": "coins", "amount": 250 },
          "loadTimeoutSeconds": 30, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
          "strategy": "bidding", "auctionTimeoutSeconds": 3, "caps": { "maxPerHour": 4, "minIntervalSeconds": 60 },
          "lineItems": [
            { "network": "google", "placementId": "ca-app-pub-3940256099942544/4806952744", "priority": 0, "ecpm": 25.0, "timeoutSeconds": 10, "bidding": true },
            { "network": "empower", "placementId": "emp-store-coins", "priority": 1, "ecpm": 15.0, "timeoutSeconds": 10, "bidding": true },
            { "network": "max", "placementId": "0a9b8c7d6e5f4a3b", "priority": 1, "ecpm": 16.0, "timeoutSeconds": 10, "bidding": true }
          ]
        }
      ]
    }
    """#
}
