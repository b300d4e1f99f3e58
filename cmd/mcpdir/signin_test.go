package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// statusKB reads a field (VmHWM, VmRSS) of /proc/self/status in kB.
func statusKB(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// loginsAt sends logins at once, each through the trusted proxy from the
// address from(i), and returns the count of each answer ("401", "429",
// "429 without Retry-After", …).
func loginsAt(t *testing.T, base string, n int, from func(i int) string, form func(i int) url.Values) map[string]int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	out := map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(form(i).Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", from(i))
			resp, err := client.Do(req)
			answer := ""
			if err != nil {
				answer = "error: " + err.Error()
			} else {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answer = strconv.Itoa(resp.StatusCode)
				if resp.StatusCode == 429 && resp.Header.Get("Retry-After") == "" {
					answer += " without Retry-After"
				}
			}
			mu.Lock()
			out[answer]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return out
}

// Finding 2 of issue 33: password hashing (argon2id, 19 MiB a hash) ran
// without bound, for unknown emails too: 120 logins at once took the
// server from 65 MB to 2.35 GB. Hashes now run a few at once (the cores),
// a short queue waits, and the rest get 429 with Retry-After: 240 logins,
// 120 at a time from distinct /64s, grow the process's peak memory by
// well under 512 MB.
func TestLoginsAtOnceStayInMemory(t *testing.T) {
	s := startServer(t, "", "--trusted-proxies", "127.0.0.1", "--no-starter")
	ada := newBrowser(t, s.URL)
	if code, _ := ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 {
		t.Fatalf("sign up: %d", code)
	}
	debug.FreeOSMemory()
	// Reset the peak to the present (Linux: 5 > clear_refs); without it
	// the growth is counted from the present size.
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	before := statusKB(t, "VmRSS")
	answers := map[string]int{}
	for round := range 2 {
		got := loginsAt(t, s.URL, 120, func(i int) string { return fmt.Sprintf("2001:db8:%x:%x::1", round+1, i+1) },
			func(i int) url.Values {
				email := "ada@example.com"
				if i%2 == 1 {
					email = fmt.Sprintf("nobody%d@example.com", i) // unknown: the same cost
				}
				return url.Values{"email": {email}, "password": {"not the password"}}
			})
		for k, v := range got {
			answers[k] += v
		}
	}
	growth := statusKB(t, "VmHWM") - before
	t.Logf("240 logins, 120 at a time from distinct /64s: %v; peak memory grew by %d MB (from %d MB)", answers, growth/1024, before/1024)
	if answers["401"]+answers["429"] != 240 || answers["401"] == 0 {
		t.Errorf("answers other than 401 and 429 with Retry-After: %v", answers)
	}
	limit := 256 * 1024 // KB: well under the 512 MB the issue allows
	if raceDetector {
		limit = 512 * 1024 // the detector's shadow memory grows with the heap
	}
	if growth > limit {
		t.Errorf("peak memory grew by %d MB, want under %d MB", growth/1024, limit/1024)
	}
	// The owner gets in afterwards.
	if code, _ := ada.do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 {
		t.Errorf("the owner after the burst: %d", code)
	}
}

// Finding 1 of issue 33, through the server: 110 wrong passwords at once
// from one address were all evaluated, and the right password then got
// in. Now at most the limit's worth are evaluated (401), the rest are 429,
// and so is the right password from there.
func TestParallelWrongLoginsFromOneAddress(t *testing.T) {
	s := startServer(t, "", "--trusted-proxies", "127.0.0.1", "--no-starter")
	ada := newBrowser(t, s.URL)
	if code, _ := ada.do("POST", "/signup", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 200 {
		t.Fatalf("sign up: %d", code)
	}
	from := func(int) string { return "203.0.113.7" }
	got := loginsAt(t, s.URL, 110, from, func(int) url.Values {
		return url.Values{"email": {"ada@example.com"}, "password": {"a wrong guess!"}}
	})
	t.Logf("110 wrong passwords at once from one address: %v", got)
	if got["401"] > 10 || got["401"]+got["429"] != 110 {
		t.Errorf("%d of 110 evaluated (at most 10): %v", got["401"], got)
	}
	// On a loaded machine the hashing queue may refuse some of them as
	// busy (429 too) before they count: wrong guesses one at a time then
	// fill the bar, and exactly 10 are ever evaluated.
	evaluated := got["401"]
	for range 11 {
		one := loginsAt(t, s.URL, 1, from, func(int) url.Values {
			return url.Values{"email": {"ada@example.com"}, "password": {"a wrong guess!"}}
		})
		if one["401"] == 0 {
			break
		}
		evaluated++
	}
	if evaluated != 10 {
		t.Errorf("%d wrong passwords evaluated from one address before it was stopped, want 10", evaluated)
	}
	right := loginsAt(t, s.URL, 1, from, func(int) url.Values {
		return url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}
	})
	if right["429"] != 1 {
		t.Errorf("the right password after them: %v", right)
	}
}
