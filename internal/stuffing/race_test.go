//go:build race

package stuffing

// raceEnabled: the race detector slows Build about fivefold, so -race
// -short runs leave the accuracy tests on large meshes to the plain run;
// the parallel stages stay covered by the smaller tests.
const raceEnabled = true
