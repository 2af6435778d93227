// Package e2e tests the web chat example in a real browser: it builds and
// starts the webchat program, drives Debian's Chromium through the page with
// chromedp, and saves screenshots.
//
// It is a module of its own so that the library does not depend on chromedp.
// Run it from this directory:
//
//	go test -count=1 ./...
//
// Without /usr/bin/chromium the test is skipped, unless CI=true, where it
// fails. Screenshots go to $WEBCHAT_ARTIFACTS when set, else to a temporary
// directory; the test logs their paths.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/examples/internal/demo"
)

const chromium = "/usr/bin/chromium"

// timeout bounds the whole test: build, browser start and the chat.
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
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer cancelBrowser()

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

	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, exceptions, "the page threw")
}

// buildWebchat builds the webchat program from the repository root into a
// temporary directory and returns the binary's path.
func buildWebchat(t *testing.T, ctx context.Context) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "webchat")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/webchat")
	cmd.Dir = filepath.Join("..", "..", "..")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// startWebchat starts bin on a free loopback port and returns the page's
// URL, as the program prints it. The program is stopped in t.Cleanup:
// interrupted, and killed if it does not exit within a few seconds.
func startWebchat(t *testing.T, ctx context.Context, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
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
