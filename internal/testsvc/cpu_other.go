//go:build !unix

package testsvc

// processCPU is unknown here: CPUMeter reports Redis's CPU alone.
func processCPU() float64 { return 0 }
