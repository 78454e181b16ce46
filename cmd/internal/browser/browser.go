// Package browser finds (and, as root on Debian, installs) the headless
// Chromium that the reviewer desk's browser tests and `make screenshots`
// drive through chromedp, and opens a browser context on it.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/chromedp/chromedp"
)

// names are the executables tried, in order.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

var installOnce sync.Once

// Find returns the path of a Chromium executable. When none is on PATH
// and the process runs as root with apt-get available, it installs
// Debian's chromium package first (apt-get update && apt-get install -y
// chromium), once per process. ErrUnavailable wraps the reason otherwise.
func Find(ctx context.Context) (string, error) {
	if p := lookup(); p != "" {
		return p, nil
	}
	var ierr error
	installOnce.Do(func() { ierr = install(ctx) })
	if p := lookup(); p != "" {
		return p, nil
	}
	if ierr == nil {
		ierr = errors.New("chromium is not installed")
	}
	return "", fmt.Errorf("%w: %v", ErrUnavailable, ierr)
}

// ErrUnavailable: no Chromium and it cannot be installed here.
var ErrUnavailable = errors.New("browser: no headless Chromium")

func lookup() string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func install(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("not root: install Debian's chromium package (apt-get install -y chromium)")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return errors.New("no apt-get: install Chromium and put it on PATH")
	}
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "chromium"}} {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %v: %w\n%s", args, err, tail(out))
		}
	}
	return nil
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// Open starts headless Chromium at path with a 1440×900 window and returns
// a browser context and the function that closes it (and the browser).
func Open(ctx context.Context, path string) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // root in containers and CI
		chromedp.DisableGPU,
		chromedp.WindowSize(1440, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	return bctx, func() { cancelBrowser(); cancelAlloc() }
}
