//go:build !race

package stuffing

const raceEnabled = false
