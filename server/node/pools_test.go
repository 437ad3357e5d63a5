package node

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker"
)

// With every connection of the API's pool held (as a tenant's flood of
// expensive queries holds them), a scheduled job still fires, is
// dispatched and its instance finishes: the scheduler has a pool of its
// own (issue 25). On one shared pool nothing fires until the API lets go.
func TestSchedulerFiresWhileTheAPIPoolIsHeld(t *testing.T) {
	url := dbtest.NewSchema(t)
	ctx := context.Background()
	cfg := &Config{DatabaseURL: url, HTTPAddr: "127.0.0.1:0", AdminPassword: "admin-password",
		ServerID: "pools", LeaseTTL: 3 * time.Second, APIConns: 4}
	n, err := Start(ctx, cfg, &discard{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := n.Shutdown(); err != nil {
			t.Error(err)
		}
	}()
	base := "http://" + n.http.listener.Addr().String()
	api := &gql{t: t, url: base + "/graphql"}
	api.token = api.do(`mutation { login(username: "admin", password: "admin-password") { token } }`, nil).get("login", "token")
	secret := api.do(`mutation { createApp(name: "pools") { secret } }`, nil).get("createApp", "secret")
	api.do(`mutation { createJob(input: {app: "pools", name: "tick", scheduleType: FIXED_RATE, scheduleExpression: "1s", processorType: GO, processor: "noop"}) { id } }`, nil)

	w := worker.New(worker.Config{App: "pools", Secret: secret, Servers: []string{base}, Slots: 2,
		Logger: slog.New(slog.DiscardHandler)})
	w.Register("noop", worker.Func(func(worker.TaskContext) (worker.Result, error) { return worker.Result{Message: "ok"}, nil }))
	wctx, stopWorker := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(wctx) }()
	defer func() { stopWorker(); <-ran }()
	testkit.Eventually(t, "the worker connected", func() bool {
		var d struct{ Workers []struct{ ID string } }
		_ = json.Unmarshal(api.do(`{ workers(app: "pools") { id } }`, nil).Data, &d)
		return len(d.Workers) == 1
	})

	// Every connection the API's pool may open, taken and held.
	pool := n.api.Bun().DB
	held := make([]*sql.Conn, pool.Stats().MaxOpenConnections)
	for i := range held {
		if held[i], err = pool.Conn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, c := range held {
			_ = c.Close()
		}
	}()
	// The API really is blocked: a query needing the database waits.
	qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = n.api.Bun().NewSelect().ColumnExpr("1").Exec(qctx)
	cancel()
	if err == nil {
		t.Fatal("the API's pool answered a query with every connection held")
	}

	// A fire due after the hold began runs and its instance finishes,
	// read on the scheduler's pool.
	since := time.Now().UTC()
	testkit.Eventually(t, "an instance fired after the API's pool was held to succeed", func() bool {
		var count int
		// (Bounded: on a shared pool this read waits for a connection too.)
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		err := n.db.Bun().NewSelect().Table("instances").ColumnExpr("count(*)").
			Where("status = 'SUCCEEDED' AND expected_trigger_at > ?", since).Scan(qctx, &count)
		return err == nil && count > 0
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
