// Package e2e tests the web chat example in a real browser: it builds and
// starts the webchat program, drives Debian's Chromium through the page with
// chromedp, and saves screenshots. TestBrowserChatSurvivesTheDriversDeath
// also starts a redis-server of its own (Debian's) on a free port and runs
// the web chat as two replicas on it (examples/webchat/redis), then kills
// the replica that drives the answer.
//
// It is a module of its own so that the library does not depend on chromedp.
// Run it from this directory:
//
//	go test -count=1 ./...
//
// Without /usr/bin/chromium (or redis-server, for the replicas' test) the
// tests are skipped, unless CI=true, where they fail. Screenshots go to $WEBCHAT_ARTIFACTS when set, else to a temporary
// directory; the test logs their paths.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/examples/internal/demo"
)

const chromium = "/usr/bin/chromium"

// timeout bounds each whole test: builds, processes, browser and the chat.
const timeout = 90 * time.Second

func TestBrowserChat(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Chromium at %s (apt-get install chromium): %v", chromium, err)
		}
		t.Skipf("no Chromium at %s: %v", chromium, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()

	url := startWebchat(t, ctx, buildWebchat(t, ctx))
	t.Logf("webchat at %s", url)

	browser, exceptions := startBrowser(t, ctx)

	// Send a message and wait for the agent's question.
	require.NoError(t, chromedp.Do(browser,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("chat-text")),
		chromedp.SendKeys(chromedp.ID("chat-text"), "Plan a three-day trip"),
		chromedp.Click(chromedp.CSS("#chat-form button")),
		chromedp.WaitVisible(chromedp.ID("answer-form")),
	))
	question, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("question")))
	require.NoError(t, err)
	require.Contains(t, question, demo.Question)
	screenshot(t, browser, "webchat-question.png")
	id, err := chromedp.Run(browser, chromedp.Evaluate[string](`current.id`))
	require.NoError(t, err)

	// Answer it and wait for the end of the task.
	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("answer-text"), "Lisbon"),
		chromedp.Click(chromedp.CSS("#answer-form button")),
		chromedp.WaitVisible(chromedp.CSS("#log li.done")),
		chromedp.WaitNotVisible(chromedp.ID("answer-form")),
	))
	transcript, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("log")))
	require.NoError(t, err)
	status, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("status")))
	require.NoError(t, err)
	screenshot(t, browser, "webchat.png")

	for _, want := range []string{
		"Plan a three-day trip",
		"Here is a three-day plan. Day", // before the cut …
		"then the night market.",        // … and after it, with no gap
		"connection dropped, reconnecting (1/3)…",
		"resumed",
		demo.Question,
		"Lisbon",
		"Day three: a train to the coast from your starting city, a swim, and dinner by the harbour.",
		"3 days · old town · museums · coast",
		"Have a good trip!",
	} {
		require.Contains(t, transcript, want)
	}
	require.Equal(t, 1, strings.Count(transcript, "Day two:"), "no word twice")

	// The drop's notices sit where the cut happened: in the first agent
	// turn, the answer's text before them and the rest of it after them,
	// which together make the first part of the plan, whole.
	turn, err := chromedp.Run(browser, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("#log li.agent")[0].children, e => e.className + "|" + e.textContent)`))
	require.NoError(t, err)
	var layout, answer []string
	for _, child := range turn {
		class, text, _ := strings.Cut(child, "|")
		switch {
		case strings.HasPrefix(class, "artifact answer") || class == "artifact continued answer":
			layout = append(layout, "answer")
			answer = append(answer, text)
		case strings.HasPrefix(class, "notice"):
			layout = append(layout, class)
		}
	}
	require.Equal(t, []string{"answer", "notice reconnecting", "notice resumed", "answer"}, layout, "%q", turn)
	require.NotEmpty(t, answer[0], "the answer began before the cut")
	require.Equal(t, "Here is a three-day plan. Day one: a walk through the old town and a long lunch by the river. "+
		"Day two: the museum quarter, then the night market. ", strings.Join(answer, ""))
	require.Contains(t, status, "completed")
	require.Contains(t, status, "finished", "the connection status says the stream ended")
	require.NotContains(t, status, "resumed", "not the last notice")

	// A page that follows the conversation with an event ID the server
	// cannot read gets a gone event with the snapshot, then the entries
	// after it: it shows the same conversation again, each part once,
	// without the notices of the drop (they are not part of the screen,
	// and the snapshot comes after them).
	_, err = chromedp.Run(browser, chromedp.Evaluate[bool](`(() => {
		window.replayed = { id: `+strconv.Quote(id)+`, source: null, view: newView(), prompt: 0, answerKey: "", lastId: "not-an-id", reopened: 0, done: false };
		open(window.replayed);
		return true;
	})()`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(browser, chromedp.Poll[chromedp.Void](`window.replayed.done`, chromedp.WithPollingInterval(20*time.Millisecond))))
	rebuilt, err := chromedp.Run(browser, chromedp.Evaluate[[]string](`window.replayed.view.entries.map(li => li.className + "|" + li.textContent)`))
	require.NoError(t, err)
	require.Len(t, rebuilt, 4, "agent, the answer, agent, done: %q", rebuilt)
	require.True(t, strings.HasPrefix(rebuilt[0], "agent|"), rebuilt[0])
	require.Equal(t, "user|YouLisbon", rebuilt[1])
	require.Equal(t, "done|✓ completed", rebuilt[3])
	all := strings.Join(rebuilt, "")
	require.NotContains(t, all, "connection dropped", "rebuilt from a snapshot, not replayed from the start")
	for _, once := range []string{"Day two:", "Day three:", "3 days · old town · museums · coast", "Have a good trip!"} {
		require.Equal(t, 1, strings.Count(all, once), "%s once in %q", once, rebuilt)
	}
	replayedAnswer, err := chromedp.Run(browser, chromedp.Evaluate[string](
		`window.replayed.view.panes.get("artifact:answer").boxes.map(b => b.body.textContent).join("")`))
	require.NoError(t, err)
	require.Equal(t, demo.PlanStart+demo.PlanEnd, replayedAnswer)

	// A second conversation, canceled while the agent asks: the page posts
	// the cancel (JSON, from its own origin, which the relay requires) and
	// shows the failure event that ends the stream, not a connection
	// error of its own.
	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("chat-text"), "Plan another trip"),
		chromedp.Click(chromedp.CSS("#chat-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("answer-form")),
		chromedp.Click(chromedp.ID("cancel")),
		chromedp.WaitVisible(chromedp.CSS("#log li.error")),
	))
	failure, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS("#log li.error")))
	require.NoError(t, err)
	require.Contains(t, failure, "The task was canceled.")
	state, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("state")))
	require.NoError(t, err)
	require.Equal(t, "canceled", state)
	screenshot(t, browser, "webchat-canceled.png")

	require.Empty(t, exceptions(), "the page threw")
}

// TestBrowserChatSurvivesTheDriversDeath runs the web chat as two replica
// processes on a real redis-server, behind the chat's proxy, on a demo
// agent that streams slowly. It kills (SIGKILL) the replica that drives
// the answer in the middle of it: the other replica takes the answer over
// once the dead one's lease ends, and the page shows the whole answer,
// with no word twice; the question form still works, and the task
// completes.
func TestBrowserChatSurvivesTheDriversDeath(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs Chromium at %s (apt-get install chromium): %v", chromium, err)
		}
		t.Skipf("no Chromium at %s: %v", chromium, err)
	}
	redisServer, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs redis-server (apt-get install redis-server): %v", err)
		}
		t.Skipf("no redis-server: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()

	redisAddr := startRedis(t, ctx, redisServer)
	root := filepath.Join("..", "..", "..")
	agentURL := startAgent(t, ctx, build(t, ctx, root, "./examples/agent"), "-mode", "ask", "-delay", "150ms")
	bin := build(t, ctx, filepath.Join("..", "redis"), ".")
	url := startWebchat(t, ctx, bin, "-redis", redisAddr, "-replicas", "2", "-agent", agentURL)
	t.Logf("webchat at %s on redis %s, agent at %s", url, redisAddr, agentURL)
	browser, exceptions := startBrowser(t, ctx)

	// The answer, in every box the page shows it in.
	const answerJS = `Array.from(document.querySelectorAll('[data-pane="artifact:answer"]'), e => e.lastChild.textContent).join("")`

	// Send a message and wait for the answer's first day.
	require.NoError(t, chromedp.Do(browser,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("chat-text")),
		chromedp.SendKeys(chromedp.ID("chat-text"), "Plan a three-day trip"),
		chromedp.Click(chromedp.CSS("#chat-form button")),
		chromedp.Poll[chromedp.Void](answerJS+`.includes("Day one:")`, chromedp.WithPollingInterval(20*time.Millisecond)),
	))
	id, err := chromedp.Run(browser, chromedp.Evaluate[string](`current.id`))
	require.NoError(t, err)
	shown, err := chromedp.Run(browser, chromedp.Evaluate[string](answerJS))
	require.NoError(t, err)
	require.NotContains(t, shown, "Day two:", "the kill comes in the middle of the answer")

	// Kill the replica that drives it.
	pid := driverPID(t, ctx, url, id)
	killed := time.Now()
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	t.Logf("killed the driving replica, pid %d, at %q", pid, shown)

	// The other replica takes over: the page's answer changes again, and
	// the question comes.
	require.NoError(t, chromedp.Do(browser,
		chromedp.Poll[chromedp.Void](answerJS+` !== `+strconv.Quote(shown), chromedp.WithPollingInterval(20*time.Millisecond)),
	))
	t.Logf("takeover: the page's answer moved %v after the kill", time.Since(killed).Round(time.Millisecond))
	require.NoError(t, chromedp.Do(browser, chromedp.WaitVisible(chromedp.ID("answer-form"))))
	t.Logf("the question came %v after the kill", time.Since(killed).Round(time.Millisecond))
	require.NotEqual(t, pid, driverPID(t, ctx, url, id), "another replica drives it")

	half, err := chromedp.Run(browser, chromedp.Evaluate[string](answerJS))
	require.NoError(t, err)
	question, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("question")))
	require.NoError(t, err)
	require.Equal(t, demo.PlanStart, half, "the first half of the answer, whole, each word once")
	require.Contains(t, question, demo.Question)
	screenshot(t, browser, "webchat-takeover-question.png")

	// Answer the question after the takeover; the task completes.
	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("answer-text"), "Lisbon"),
		chromedp.Click(chromedp.CSS("#answer-form button")),
		chromedp.WaitVisible(chromedp.CSS("#log li.done")),
		chromedp.WaitNotVisible(chromedp.ID("answer-form")),
	))
	whole, err := chromedp.Run(browser, chromedp.Evaluate[string](answerJS))
	require.NoError(t, err)
	transcript, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("log")))
	require.NoError(t, err)
	status, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("status")))
	require.NoError(t, err)
	screenshot(t, browser, "webchat-takeover.png")
	require.Equal(t, demo.PlanStart+demo.PlanEnd, whole, "the whole answer, each word once")
	for _, day := range []string{"Day one:", "Day two:", "Day three:"} {
		require.Equal(t, 1, strings.Count(transcript, day), "%s once in %q", day, transcript)
	}
	require.Equal(t, 1, strings.Count(transcript, "Lisbon"), "the answer once")
	paras, err := chromedp.Run(browser, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("#log li.agent > :not(.who)"), e => e.textContent)`))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, p := range paras {
		require.False(t, seen[p], "shown twice: %q in %q", p, paras)
		seen[p] = true
	}
	require.Contains(t, status, "completed")
	require.Empty(t, exceptions(), "the page threw")
}

// driverPID asks the web chat's proxy which replica drives conversation id,
// and returns its process ID.
func driverPID(t *testing.T, ctx context.Context, url, id string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"api/conversations/"+id+"/driver", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out struct {
		PID int `json:"pid"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Positive(t, out.PID)
	return out.PID
}

// startRedis starts redis-server on a free port of 127.0.0.1, without
// persistence, waits (within ctx) until it answers a PING, and returns its
// address. It is killed in t.Cleanup.
func startRedis(t *testing.T, ctx context.Context, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	require.NoError(t, ln.Close())
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	start, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := (&net.Dialer{}).DialContext(start, "tcp", addr); err == nil {
			_, err = c.Write([]byte("PING\r\n"))
			reply := make([]byte, 7)
			if err == nil {
				_, err = io.ReadFull(c, reply)
			}
			c.Close()
			if err == nil && string(reply) == "+PONG\r\n" {
				return addr
			}
		}
		select {
		case <-start.Done():
			t.Fatalf("redis-server did not answer on %s: %v\n%s", addr, start.Err(), out.Bytes())
		case <-tick.C:
		}
	}
}

// startAgent starts the demo agent (examples/agent) on a free loopback
// port and returns its URL, as it prints it. It is stopped in t.Cleanup.
func startAgent(t *testing.T, ctx context.Context, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		s, _ := r.ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, r) // the request log
	}()
	select {
	case s := <-line:
		m := regexp.MustCompile(`^a2a demo agent at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(s)
		require.NotNil(t, m, "the agent printed %q", s)
		return m[1]
	case <-ctx.Done():
		t.Fatalf("the agent printed no URL: %v", ctx.Err())
		return ""
	}
}

// startBrowser starts a headless Chromium, closed when ctx ends or in
// t.Cleanup, and returns its context and a function that returns the
// uncaught exceptions of its pages so far.
func startBrowser(t *testing.T, ctx context.Context) (context.Context, func() []string) {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(900, 1100),
	)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelBrowser)

	// Any uncaught exception in the page fails the test.
	var (
		mu         sync.Mutex
		exceptions []string
	)
	require.NoError(t, chromedp.Listen(browser, func(ev any) {
		if ex, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			exceptions = append(exceptions, (&chromedp.ExceptionError{ExceptionDetails: ex.ExceptionDetails}).Error())
			mu.Unlock()
		}
	}))
	return browser, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(exceptions)
	}
}

// buildWebchat builds the webchat program from the repository root into a
// temporary directory and returns the binary's path.
func buildWebchat(t *testing.T, ctx context.Context) string {
	t.Helper()
	return build(t, ctx, filepath.Join("..", "..", ".."), "./examples/webchat")
}

// build builds the program pkg of the module in dir into a temporary
// directory and returns the binary's path.
func build(t *testing.T, ctx context.Context, dir, pkg string) string {
	t.Helper()
	name := filepath.Base(pkg)
	if name == "." {
		name = filepath.Base(dir)
	}
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", pkg, out)
	return bin
}

// startWebchat starts bin on a free loopback port and returns the page's
// URL, as the program prints it. The program is stopped in t.Cleanup:
// interrupted, and killed if it does not exit within a few seconds.
func startWebchat(t *testing.T, ctx context.Context, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("webchat exited with %v", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("webchat did not stop on SIGINT; killed")
		}
		if stderr.Len() > 0 {
			t.Logf("webchat stderr:\n%s", stderr.Bytes())
		}
	})

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		m := regexp.MustCompile(`^webchat listening on (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(s)
		require.NotNil(t, m, "webchat printed %q", s)
		return m[1]
	case <-ctx.Done():
		t.Fatalf("webchat printed no URL: %v", ctx.Err())
		return ""
	}
}

// screenshot saves a PNG of the whole page as a test artifact.
func screenshot(t *testing.T, browser context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	dir := os.Getenv("WEBCHAT_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}
