package analysis

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// OpenAIConfig configures the OpenAI analyzer and drafter. cmd/ fills it
// from OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY; this package never
// reads the environment. Any OpenAI-compatible server works.
type OpenAIConfig struct {
	// BaseURL of the API, e.g. "https://api.openai.com/v1" (the default when
	// empty) or a compatible server's "/v1" URL.
	BaseURL string
	// Model name; "gpt-4o-mini" when empty.
	Model string
	// APIKey is sent as a bearer token; may be empty for local servers.
	APIKey string
	// AttemptTimeout bounds each HTTP attempt (default 30s). The caller's
	// context bounds the whole call.
	AttemptTimeout time.Duration
	// MaxRetries is the SDK's retry budget, clamped to [0,1] (default 1):
	// asynq owns retries, the SDK only absorbs one 429/5xx blip.
	MaxRetries int
	// MaxRetryDelay caps the wait before the SDK's retry (default 2s).
	MaxRetryDelay time.Duration
	// HTTPClient overrides the transport (tests); nil uses the SDK default.
	HTTPClient *http.Client
}

// Defaults for OpenAIConfig.
const (
	DefaultOpenAIBaseURL  = "https://api.openai.com/v1"
	DefaultOpenAIModel    = "gpt-4o-mini"
	defaultAttemptTimeout = 30 * time.Second
	defaultMaxRetryDelay  = 2 * time.Second
)

func (c OpenAIConfig) withDefaults() (OpenAIConfig, error) {
	if c.BaseURL == "" {
		c.BaseURL = DefaultOpenAIBaseURL
	}
	if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return c, errors.New("openai: BaseURL must be an http(s) URL")
	}
	if c.Model == "" {
		c.Model = DefaultOpenAIModel
	}
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = defaultAttemptTimeout
	}
	c.MaxRetries = min(max(c.MaxRetries, 0), 1)
	if c.MaxRetryDelay <= 0 {
		c.MaxRetryDelay = defaultMaxRetryDelay
	}
	return c, nil
}

// newClient builds an SDK client that uses only cfg (explicit base URL and
// key override the SDK's environment defaults).
func newClient(cfg OpenAIConfig) openai.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithMaxRetryDelay(cfg.MaxRetryDelay),
		option.WithRequestTimeout(cfg.AttemptTimeout),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return openai.NewClient(opts...)
}

// attemptCounter counts HTTP attempts of one call (for LLMUsage.Attempts).
func attemptCounter(n *atomic.Int32) option.RequestOption {
	return option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		n.Add(1)
		return next(r)
	})
}
