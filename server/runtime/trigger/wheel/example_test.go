package wheel_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jobwheel/jobwheel/server/runtime/trigger/wheel"
)

func Example() {
	fired := make(chan []wheel.Entry[string], 1)
	w := wheel.New(func(ctx context.Context, batch []wheel.Entry[string]) {
		fired <- batch // one batch per tick; the FireFunc owns the slice
	}, wheel.Options{Workers: 2})
	w.Start(context.Background())
	defer w.Stop()

	const app = 7
	at := time.Now().Add(5 * time.Millisecond)
	w.Schedule(app, at, "nightly-report")
	h := w.Schedule(app, at.Add(time.Hour), "cancelled")
	w.Cancel(h)

	for _, e := range <-fired {
		fmt.Println(e.Group, e.Value, !time.Now().Before(e.At))
	}
	// Losing app 7's lease:
	w.DropGroup(app)
	fmt.Println(w.Len())
	// Output:
	// 7 nightly-report true
	// 0
}
