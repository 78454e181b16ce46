package analysis

import (
	"context"
	"errors"

	"github.com/foiaflow/foiaflow/workflow"
)

type OpenAIConfig struct{ BaseURL, Model, APIKey string }

type OpenAIAnalyzer struct{}

func NewOpenAIAnalyzer(c OpenAIConfig) (*OpenAIAnalyzer, error) { return &OpenAIAnalyzer{}, nil }

func (*OpenAIAnalyzer) Analyze(ctx context.Context, r workflow.Reply, c workflow.CaseContext) (workflow.Analysis, error) {
	return workflow.Analysis{}, errors.New("todo")
}
