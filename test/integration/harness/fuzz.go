package harness

import "flag"

// Fuzzing reports whether the test binary runs for go test -fuzz, as the coordinator or as one of its worker
// processes, which run TestMain too. A fuzzing run needs no control plane: fuzz targets test parsers. When it
// returns true and no -run pattern was given, it sets -test.run to "^$", so that no test that needs control planes
// runs (the fuzz target's seed corpus still does, as fuzzing starts with it).
func Fuzzing() bool {
	if !flag.Parsed() {
		flag.Parse()
	}
	fuzzing := false
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			fuzzing = true
		}
	}
	if run := flag.Lookup("test.run"); fuzzing && run != nil && run.Value.String() == "" {
		_ = run.Value.Set("^$")
	}
	return fuzzing
}
