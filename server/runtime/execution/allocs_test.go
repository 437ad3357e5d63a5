package execution

// dispatchAllocsBefore is what BenchmarkDispatch allocated per op on the
// commit before traces (measured; see TestDispatchAllocatesNothingForTracesWhenOff).
const dispatchAllocsBefore = 16
