package jobs

// LagJoined counts the Lag calls that waited for a computation under way.
func LagJoined(s *Service) int64 {
	s.lags.mu.Lock()
	defer s.lags.mu.Unlock()
	return s.lags.joined
}
