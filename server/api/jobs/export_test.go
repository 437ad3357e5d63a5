package jobs

// LagJoined counts the Lag calls that waited for a computation under way.
func LagJoined(s *Service) int64 {
	s.lags.mu.Lock()
	defer s.lags.mu.Unlock()
	return s.lags.joined
}

// CountsJoined counts the Stats calls that waited for an app's counts
// being read.
func CountsJoined(s *Service) int64 {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return s.counts.joined
}
