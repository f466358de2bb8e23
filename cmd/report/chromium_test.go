//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromiumTimeout bounds one headless Chromium run: a cold start takes a
// few seconds on a loaded 2-core machine.
const chromiumTimeout = 60 * time.Second

// TestReportRendersInChromium renders a report in headless Chromium and
// checks that the browser drew it: the screenshot is not blank, has the
// colours of the charts, and the page logged nothing to the console (the
// report has no script, so any console line is an error or a blocked
// load: the page's Content-Security-Policy of default-src 'none' makes
// Chromium log every attempt to fetch something).
//
// Without chromium on PATH the test is skipped, unless
// BUDGETSIM_REQUIRE_CHROMIUM=1 (CI sets it after
// scripts/install-chromium.sh), which makes that a failure.
func TestReportRendersInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("BUDGETSIM_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("chromium is not on PATH and BUDGETSIM_REQUIRE_CHROMIUM=1: run scripts/install-chromium.sh")
		}
		t.Skip("chromium is not on PATH (scripts/install-chromium.sh installs it; BUDGETSIM_REQUIRE_CHROMIUM=1 turns this skip into a failure)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if _, stderr, code := runCLI(t, "retry-storm", "--replications", "2", "--out", page); code != 0 {
		t.Fatalf("report retry-storm: exit %d, stderr:\n%s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ToLower(html), []byte("<script")) {
		t.Fatalf("report contains a <script>: it must have none")
	}

	shot := filepath.Join(dir, "report.png")
	stderr := chromium(t, bin, "--enable-logging=stderr", "--v=0", "--screenshot="+shot, "file://"+page)
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("chromium console: %s", line)
		}
	}

	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v; stderr:\n%s", err, stderr)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("png.Decode(screenshot) = %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 2000 {
		t.Errorf("screenshot is %d×%d, want 1400×2000 (--window-size)", b.Dx(), b.Dy())
	}
	st := pixelStats(img)
	t.Logf("screenshot: %.1f%% non-background pixels, %d colours, %d vermillion pixels", 100*st.ink, st.colours, st.vermillion)
	// A blank or unstyled page is white with a little black text: under
	// 5 % ink and a handful of colours. The report at this size shows
	// tables, shaded rows and four charts (measured: about 8 % ink and
	// thousands of colours from antialiasing).
	if st.ink < 0.05 {
		t.Errorf("screenshot has %.2f%% non-background pixels, want > 5%%: the page looks blank", 100*st.ink)
	}
	if st.colours < 64 {
		t.Errorf("screenshot has %d distinct colours, want ≥ 64", st.colours)
	}
	// The timeline of the slowest run draws retry-storm's timed-out
	// attempts as Okabe–Ito vermillion bars, a colour the page's CSS does
	// not use: seeing it proves the inline SVG was drawn.
	if st.vermillion < 500 {
		t.Errorf("screenshot has %d vermillion (#D55E00) pixels, want ≥ 500: the charts' SVG was not drawn", st.vermillion)
	}
	if t.Failed() {
		t.Logf("chromium stderr:\n%s", stderr)
	}
}

// chromium runs headless Chromium with a fresh profile and args, bounded
// by chromiumTimeout, and returns its stderr. It runs Chromium in its own
// process group and kills the group when done, so that no helper process
// it forked outlives the test.
func chromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	profile, err := os.MkdirTemp("", "budgetsim-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--window-size=1400,2000",
	}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left in the group, if any
	}
	t.Logf("chromium took %v", time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("chromium did not finish within %v; stderr:\n%s", chromiumTimeout, stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium %s: %v; stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// screenshotStats are what a screenshot shows: the share of pixels that
// differ from the background (the top-left pixel), the number of distinct
// colours, and the pixels close to Okabe–Ito vermillion.
type screenshotStats struct {
	ink        float64
	colours    int
	vermillion int
}

func pixelStats(img image.Image) screenshotStats {
	b := img.Bounds()
	bg := color.NRGBAModel.Convert(img.At(b.Min.X, b.Min.Y)).(color.NRGBA)
	diff := func(a, b uint8) int {
		if a > b {
			return int(a - b)
		}
		return int(b - a)
	}
	seen := map[color.NRGBA]bool{}
	var st screenshotStats
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			seen[c] = true
			if max(diff(c.R, bg.R), diff(c.G, bg.G), diff(c.B, bg.B)) > 16 {
				ink++
			}
			if diff(c.R, 0xD5)+diff(c.G, 0x5E)+diff(c.B, 0x00) < 40 {
				st.vermillion++
			}
		}
	}
	st.ink = float64(ink) / float64(b.Dx()*b.Dy())
	st.colours = len(seen)
	return st
}

// TestDirReportRendersInChromium: the report of a comparison's directory
// and of a plan's is drawn by the browser (not blank, the charts' colours
// present) with nothing on its console. Skipped without chromium, as
// TestReportRendersInChromium.
func TestDirReportRendersInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("BUDGETSIM_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("chromium is not on PATH and BUDGETSIM_REQUIRE_CHROMIUM=1: run scripts/install-chromium.sh")
		}
		t.Skip("chromium is not on PATH (scripts/install-chromium.sh installs it)")
	}
	for name, dir := range map[string]string{"compare": "../../internal/charts/testdata/storm", "plan": planDir(t)} {
		out := t.TempDir()
		page := filepath.Join(out, name+".html")
		if _, stderr, code := runCLI(t, dir, "--out", page); code != 0 {
			t.Fatalf("report %s: exit %d, stderr:\n%s", dir, code, stderr)
		}
		shot := filepath.Join(out, name+".png")
		stderr := chromium(t, bin, "--enable-logging=stderr", "--v=0", "--screenshot="+shot, "file://"+page)
		if strings.Contains(stderr, ":CONSOLE") || strings.Contains(stderr, "Uncaught") {
			t.Errorf("%s: chromium console:\n%s", name, stderr)
		}
		f, err := os.Open(shot)
		if err != nil {
			t.Fatalf("%s: chromium wrote no screenshot: %v", name, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		st := pixelStats(img)
		t.Logf("%s: %.1f%% ink, %d colours", name, 100*st.ink, st.colours)
		if st.ink < 0.03 || st.colours < 64 {
			t.Errorf("%s: screenshot has %.2f%% ink and %d colours: the page looks blank or its charts undrawn", name, 100*st.ink, st.colours)
		}
	}
}
