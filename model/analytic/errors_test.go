package analytic

import (
	"errors"
	"math"
	"testing"
)

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	call := func(_ float64, err error) error { return err }
	callInt := func(_ int, err error) error { return err }
	callMG1 := func(_ MG1, err error) error { return err }
	callDist := func(_ []float64, err error) error { return err }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"MM1{0,1}.Rho()", call(MM1{0, 1}.Rho()), "lambda: must be > 0, got 0"},
		{"MM1{1,-2}.MeanWait()", call(MM1{1, -2}.MeanWait()), "mu: must be > 0, got -2"},
		{"MM1{NaN,1}.MeanWait()", call(MM1{nan, 1}.MeanWait()), "lambda: must be > 0, got NaN"},
		{"MM1{Inf,1}.MeanWait()", call(MM1{inf, 1}.MeanWait()), "lambda: must be finite, got +Inf"},
		{"MM1{1,2}.WaitQuantile(1)", call(MM1{1, 2}.WaitQuantile(1)), "p: must be in [0, 1), got 1"},
		{"MM1{1,2}.SojournQuantile(-0.1)", call(MM1{1, 2}.SojournQuantile(-0.1)), "p: must be in [0, 1), got -0.1"},
		{"MM1{1,2}.SojournCDF(NaN)", call(MM1{1, 2}.SojournCDF(nan)), "t: must be a number, got NaN"},
		{"MMc{1,1,0}.Rho()", call(MMc{1, 1, 0}.Rho()), "c: must be >= 1, got 0"},
		{"MMc{1,0,2}.ErlangC()", call(MMc{1, 0, 2}.ErlangC()), "mu: must be > 0, got 0"},
		{"MMc{1,1,2}.SojournQuantile(NaN)", call(MMc{1, 1, 2}.SojournQuantile(nan)), "p: must be in [0, 1), got NaN"},
		{"MMcK{1,1,3,2}.Rho()", call(MMcK{1, 1, 3, 2}.Rho()), "k: must be >= c (3), got 2"},
		{"MMcK{1,1,0,2}.MeanWait()", call(MMcK{1, 1, 0, 2}.MeanWait()), "c: must be >= 1, got 0"},
		{"MMcK{-1,1,1,2}.Distribution()", callDist(MMcK{-1, 1, 1, 2}.Distribution()), "lambda: must be > 0, got -1"},
		{"MG1{1,0,1}.Rho()", call(MG1{1, 0, 1}.Rho()), "meanService: must be > 0, got 0"},
		{"MG1{1,0.5,0.2}.MeanWait()", call(MG1{1, 0.5, 0.2}.MeanWait()), "secondMoment: must be finite and >= meanService² = 0.25, got 0.2"},
		{"MD1(1,0)", callMG1(MD1(1, 0)), "d: must be > 0, got 0"},
		{"MG1FromCV(1,1,-1)", callMG1(MG1FromCV(1, 1, -1)), "cv: must be finite and >= 0, got -1"},
		{"MG1FromCV(1,0,1)", callMG1(MG1FromCV(1, 0, 1)), "mean: must be > 0, got 0"},
		{"OfferedLoad(1,0)", call(OfferedLoad(1, 0)), "mu: must be > 0, got 0"},
		{"ErlangB(0,1)", call(ErlangB(0, 1)), "a: must be > 0, got 0"},
		{"ErlangC(1,-1)", call(ErlangC(1, -1)), "c: must be >= 1, got -1"},
		{"MinServersForWait(1,1,0.9,-1)", callInt(MinServersForWait(1, 1, 0.9, -1)), "maxWait: must be finite and >= 0, got -1"},
		{"MinServersForWait(1,1,1,1)", callInt(MinServersForWait(1, 1, 1, 1)), "p: must be in [0, 1), got 1"},
		{"MinServersForMeanWait(1,1,0)", callInt(MinServersForMeanWait(1, 1, 0)), "maxMeanWait: must be > 0, got 0"},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: error = nil, want %q", tt.name, tt.want)
			continue
		}
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: error = %q, want %q", tt.name, got, tt.want)
		}
		if errors.Is(tt.err, ErrUnstable) {
			t.Errorf("%s: errors.Is(err, ErrUnstable) = true for a field error", tt.name)
		}
	}
}

func TestUnstable(t *testing.T) {
	t.Parallel()
	call := func(_ float64, err error) error { return err }
	tests := []struct {
		name    string
		err     error
		wantRho float64
	}{
		{"MM1{2,2}.MeanWait()", call(MM1{2, 2}.MeanWait()), 1},
		{"MM1{3,2}.SojournQuantile(0.5)", call(MM1{3, 2}.SojournQuantile(0.5)), 1.5},
		{"MMc{10,1,10}.ErlangC()", call(MMc{10, 1, 10}.ErlangC()), 1},
		{"MMc{12,1,10}.SojournCDF(1)", call(MMc{12, 1, 10}.SojournCDF(1)), 1.2},
		{"MG1{1,2,4}.MeanSojourn()", call(MG1{1, 2, 4}.MeanSojourn()), 2},
		{"ErlangC(3,3)", call(ErlangC(3, 3)), 1},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, ErrUnstable) {
			t.Errorf("%s: error = %v, want ErrUnstable", tt.name, tt.err)
			continue
		}
		var ue *UnstableError
		if !errors.As(tt.err, &ue) || ue.Rho != tt.wantRho {
			t.Errorf("%s: UnstableError.Rho = %v, want %v", tt.name, ue, tt.wantRho)
		}
	}
	// Rho itself reports the load without requiring stability, and the
	// finite-capacity model is valid at any load.
	if rho, err := (MM1{3, 2}).Rho(); err != nil || rho != 1.5 {
		t.Errorf("MM1{3,2}.Rho() = %v, %v, want 1.5, nil", rho, err)
	}
	if _, err := (MMcK{30, 1, 10, 20}).MeanSojourn(); err != nil {
		t.Errorf("MMcK{30,1,10,20}.MeanSojourn() error = %v, want nil (finite capacity)", err)
	}
	want := "rho: must be < 1 for a steady state, got 1.5"
	if got := call(MM1{3, 2}.MeanWait()).Error(); got != want {
		t.Errorf("MM1{3,2}.MeanWait() error = %q, want %q", got, want)
	}
}
