package analytic

import (
	"math"
	"testing"
)

// TestMG1Exponential: exponential service with rate mu has E[S] = 1/mu and
// E[S^2] = 2/mu², and Pollaczek–Khinchine then reproduces M/M/1 exactly:
// Wq = lambda (2/mu²) / (2 (1 - rho)) = rho / (mu - lambda).
func TestMG1Exponential(t *testing.T) {
	t.Parallel()
	ok := val(t)
	for _, m := range []MM1{{1, 2}, {9, 10}, {0.3, 7}} {
		g := MG1{Lambda: m.Lambda, MeanService: 1 / m.Mu, SecondMoment: 2 / (m.Mu * m.Mu)}
		cv := must[MG1](t)(MG1FromCV(m.Lambda, 1/m.Mu, 1))
		for _, q := range []MG1{g, cv} {
			pairs := []struct {
				name         string
				got, wantMM1 float64
			}{
				{"Rho()", ok(q.Rho()), ok(m.Rho())},
				{"MeanWait()", ok(q.MeanWait()), ok(m.MeanWait())},
				{"MeanSojourn()", ok(q.MeanSojourn()), ok(m.MeanSojourn())},
				{"MeanInSystem()", ok(q.MeanInSystem()), ok(m.MeanInSystem())},
				{"MeanQueue()", ok(q.MeanQueue()), ok(m.MeanQueue())},
			}
			for _, p := range pairs {
				if !near(p.got, p.wantMM1, 1e-13) {
					t.Errorf("%+v.%s = %.15g, want M/M/1 %.15g", q, p.name, p.got, p.wantMM1)
				}
			}
		}
	}
}

// TestMG1Reference pins Pollaczek–Khinchine values computed by hand,
// Wq = lambda E[S^2] / (2 (1 - rho)) (Gross et al., 4th ed., §5.1).
func TestMG1Reference(t *testing.T) {
	t.Parallel()
	ok := val(t)
	md1 := must[MG1](t)(MD1(0.5, 1))
	hyper := must[MG1](t)(MG1FromCV(0.8, 1, 3))
	tests := []struct {
		name      string
		got, want float64
	}{
		// M/D/1, lambda 0.5, d 1: rho 0.5, Wq = 0.5·1/(2·0.5) = 0.5, half the
		// M/M/1 wait rho/(mu-lambda) = 1 at the same load.
		{"MD1(0.5, 1).MeanWait()", ok(md1.MeanWait()), 0.5},
		{"MD1(0.5, 1).MeanSojourn()", ok(md1.MeanSojourn()), 1.5},
		{"MD1(0.5, 1).MeanInSystem()", ok(md1.MeanInSystem()), 0.75},
		// cv 3: E[S^2] = 1·(1 + 9) = 10; rho 0.8; Wq = 0.8·10/(2·0.2) = 20;
		// Lq = 0.8·20 = 16.
		{"MG1FromCV(0.8, 1, 3).MeanWait()", ok(hyper.MeanWait()), 20},
		{"MG1FromCV(0.8, 1, 3).MeanQueue()", ok(hyper.MeanQueue()), 16},
		{"MG1FromCV(0.8, 1, 3).SecondMoment", hyper.SecondMoment, 10},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, 1e-13) {
			t.Errorf("%s = %.15g, want %.15g", tt.name, tt.got, tt.want)
		}
	}
	// The wait grows linearly in E[S^2] at fixed rho (the P-K "variability
	// term"): cv 0 -> 1 doubles it.
	md := ok(must[MG1](t)(MG1FromCV(0.5, 1, 0)).MeanWait())
	mm := ok(must[MG1](t)(MG1FromCV(0.5, 1, 1)).MeanWait())
	if !near(mm, 2*md, 1e-14) {
		t.Errorf("MeanWait at cv=1 = %v, want 2 × MeanWait at cv=0 = %v", mm, 2*md)
	}
}

// TestMG1ConstantServiceRounded: a constant service time whose second
// moment is written as its rounded square (0.1 s and 0.01 s², while
// 0.1*0.1 rounds to 0.010000000000000002) is M/D/1, not an error; a
// second moment clearly below the square still is one.
func TestMG1ConstantServiceRounded(t *testing.T) {
	md1, err := MD1(5, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := md1.MeanWait()
	if err != nil {
		t.Fatal(err)
	}
	got, err := MG1{Lambda: 5, MeanService: 0.1, SecondMoment: 0.01}.MeanWait()
	if err != nil {
		t.Fatalf("rounded E[S²]: %v", err)
	}
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("mean wait %v, want M/D/1's %v", got, want)
	}
	if _, err := (MG1{Lambda: 5, MeanService: 0.1, SecondMoment: 0.0099}).MeanWait(); err == nil {
		t.Error("E[S²] = 0.0099 < E[S]² = 0.01: want an error")
	}
}
