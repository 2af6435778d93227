package wirematrix

import "testing"

// Scenario is one of the guarantees every wire keeps, as its matrix
// runners run it.
type Scenario struct {
	// Name names the scenario in subtests.
	Name string
	// Parallel says the scenario's test may run in parallel with others
	// (the long ones).
	Parallel bool
	// Run runs the scenario's subtests on one wire.
	Run func(t *testing.T, w Wire)
}

// Scenarios are the scenarios of the package, in the order of its doc:
// what every wire must keep. A runner of a new wire runs them all (RunAll),
// so a new scenario added here runs on every wire.
func Scenarios() []Scenario {
	return []Scenario{
		{Name: "CutAnywhere", Parallel: true, Run: CutAnywhere},
		{Name: "DropsAreHealed", Run: DropsAreHealed},
		{Name: "StylesMixedPerReconnect", Parallel: true, Run: func(t *testing.T, w Wire) { StylesMixedPerReconnect(t, w, MixedSeeds) }},
		{Name: "HumanInTheLoop", Run: HumanInTheLoop},
		{Name: "HumanInTheLoopAcrossDrops", Run: HumanInTheLoopAcrossDrops},
		{Name: "FirstSendNeverResent", Parallel: true, Run: FirstSendNeverResent},
		{Name: "FirstSendCutAtEveryByte", Parallel: true, Run: FirstSendCutAtEveryByte},
		{Name: "ReplyNeverResent", Parallel: true, Run: func(t *testing.T, w Wire) { ReplyNeverResent(t, w) }},
		{Name: "Credentials", Run: Credentials},
		{Name: "CredentialsRenewedOnRefusal", Run: CredentialsRenewedOnRefusal},
		{Name: "Polling", Run: Polling},
		{Name: "ResumeFromACheckpoint", Parallel: true, Run: ResumeFromACheckpoint},
		{Name: "Endings", Parallel: true, Run: func(t *testing.T, w Wire) { Endings(t, w, EndingCases()) }},
	}
}

// Named returns the scenario of Scenarios called name; it fails t when
// there is none.
func Named(t *testing.T, name string) Scenario {
	t.Helper()
	for _, s := range Scenarios() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("wirematrix: no scenario %q", name)
	return Scenario{}
}

// On runs s on each of wires, in order, in the test t (in parallel with
// other tests when s is Parallel): what a matrix test of s calls, with the
// wires it can build.
func (s Scenario) On(t *testing.T, wires ...Wire) {
	if s.Parallel {
		t.Parallel()
	}
	for _, w := range wires {
		s.Run(t, w)
	}
}

// RunAll runs every scenario of Scenarios on each of wires, each scenario
// as a subtest of t named by its Name.
func RunAll(t *testing.T, wires ...Wire) {
	for _, s := range Scenarios() {
		t.Run(s.Name, func(t *testing.T) { s.On(t, wires...) })
	}
}
