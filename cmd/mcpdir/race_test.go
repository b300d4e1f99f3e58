//go:build race

package main

// raceDetector: the race detector's shadow memory (several times the
// heap's) counts in a test's resident memory.
const raceDetector = true
