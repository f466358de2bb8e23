package system

import (
	"fmt"

	"github.com/budgetsim/budgetsim/model/retry"
)

// newBudget builds the retry budget a step's runs share. The spec was
// validated by the loader, so a constructor error is a programmer mistake.
func newBudget(b *BudgetSpec) retry.Budget {
	var (
		budget retry.Budget
		err    error
	)
	switch b.Kind {
	case TokenBucketBudget:
		budget, err = retry.NewTokenBucket(retry.TokenBucketConfig{
			Capacity:         int(b.Capacity),
			RetryCost:        int(b.RetryCost),
			TimeoutCost:      int(b.TimeoutCost),
			NoRetryIncrement: int(b.NoRetryIncrement),
		})
	case ThrottleBudget:
		budget, err = retry.NewThrottle(int(b.MaxTokens), b.TokenRatio)
	case RatioBudget:
		budget, err = retry.NewRatio(retry.RatioConfig{TTL: b.TTL, MinPerSecond: b.MinPerSecond, Ratio: b.Ratio})
	default:
		err = fmt.Errorf("unknown budget kind %d", b.Kind)
	}
	if err != nil {
		panic("system: invalid retry budget: " + err.Error())
	}
	return budget
}
