package main

import (
	"context"
	"errors"
)

func runScale(ctx context.Context, o options) error { return errors.New("not yet") }
