package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// fleet is several servers on one PostgreSQL, each reaching it through its
// own cuttable proxy, with apps, jobs and agents.
type fleet struct {
	t     *testing.T
	dbURL string
	// serverURL is what servers connect to: dbURL, or a PgBouncer in
	// front of it.
	serverURL string
	db        *db.DB
	servers   []*fleetServer
	apps      []string
	secrets   map[string]string
	jobs      map[string][]string // app → job ids
	agents    map[string][]*harness.Process
	clients   map[string]*harness.Client
	// env is added to every server's environment.
	env []string
}

type fleetServer struct {
	*harness.Server
	id    string
	proxy *harness.Proxy
}

func newFleet(t *testing.T, servers int) *fleet {
	t.Helper()
	return newFleetVia(t, servers, false)
}

// newFleetVia is newFleet with, if pgBouncer, every server connected
// through one PgBouncer in transaction pooling mode (behind each server's
// proxy), which also runs the migrations — several at once, as servers
// starting together would. The test's own checks read PostgreSQL directly.
func newFleetVia(t *testing.T, servers int, pgBouncer bool, env ...string) *fleet {
	t.Helper()
	f := &fleet{t: t, dbURL: dbtest.NewSchema(t), secrets: map[string]string{}, jobs: map[string][]string{},
		agents: map[string][]*harness.Process{}, clients: map[string]*harness.Client{}, env: env}
	f.serverURL = f.dbURL
	var err error
	if f.db, err = db.Open(context.Background(), f.dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.db.Close() })
	if pgBouncer {
		f.serverURL = harness.StartPgBouncer(t, f.dbURL)
		migrateAtOnce(t, f.serverURL, 3)
	} else if err := f.db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < servers; i++ {
		f.addServer()
	}
	return f
}

// api returns a client of a server that is up: any server answers for the
// whole cluster.
func (f *fleet) api() *harness.Client {
	f.t.Helper()
	for _, s := range f.servers {
		if s.Exited() {
			continue
		}
		if c := f.clients[s.id]; c != nil {
			return c
		}
		c := s.Client()
		f.clients[s.id] = c
		return c
	}
	f.t.Fatal("no server is up")
	return nil
}

// addServer starts a server whose database connections go through a proxy.
func (f *fleet) addServer() *fleetServer {
	f.t.Helper()
	u, err := url.Parse(f.serverURL)
	if err != nil {
		f.t.Fatal(err)
	}
	proxy := harness.StartProxy(f.t, u.Host)
	u.Host = proxy.Addr()
	id := fmt.Sprintf("s%d", len(f.servers)+1)
	srv := harness.StartServer(f.t, harness.ServerOptions{DatabaseURL: u.String(), Name: id, Env: append([]string{"JOBWHEEL_SERVER_ID=" + id}, f.env...)})
	s := &fleetServer{Server: srv, id: id, proxy: proxy}
	f.servers = append(f.servers, s)
	return s
}

func (f *fleet) urls() []string {
	var out []string
	for _, s := range f.servers {
		out = append(out, s.URL)
	}
	return out
}

// addApp creates an app with every-second jobs and two agents that know
// every server.
func (f *fleet) addApp(name string, jobs int) {
	f.t.Helper()
	f.addAppWith(name, jobs, nil)
}

// addAppWith is addApp with extra fields in each job's input.
func (f *fleet) addAppWith(name string, jobs int, extra map[string]any) {
	f.t.Helper()
	_, secret, err := f.api().CreateApp(name)
	if err != nil {
		f.t.Fatal(err)
	}
	f.apps = append(f.apps, name)
	f.secrets[name] = secret
	for i := 0; i < jobs; i++ {
		input := map[string]any{"app": name, "name": fmt.Sprintf("tick-%d", i), "scheduleType": "CRON",
			"scheduleExpression": "* * * * * ?", "processorType": "SHELL", "processor": "true"}
		maps.Copy(input, extra)
		id, err := f.api().CreateJob(input)
		if err != nil {
			f.t.Fatal(err)
		}
		f.jobs[name] = append(f.jobs[name], id)
	}
	for i := 0; i < 2; i++ {
		a := harness.StartAgent(f.t, harness.AgentOptions{Servers: f.urls(), App: name, Secret: secret, Name: fmt.Sprintf("%s-agent%d", name, i+1)})
		f.agents[name] = append(f.agents[name], a)
	}
}

// owner returns the server id holding a live lease on the app ("" if none).
func (f *fleet) owner(app string) string {
	ctx := context.Background()
	a, err := f.db.AppGetByName(ctx, app)
	if err != nil {
		f.t.Fatal(err)
	}
	l, live, err := f.db.LeaseGet(ctx, a.ID, db.Now())
	if err != nil || !live {
		return ""
	}
	return l.ServerID
}

func (f *fleet) server(id string) *fleetServer {
	for _, s := range f.servers {
		if s.id == id {
			return s
		}
	}
	f.t.Fatalf("no server %s", id)
	return nil
}

// workersOn returns the servers the app's live workers are connected to.
func (f *fleet) workersOn(app string) []string {
	a, err := f.db.AppGetByName(context.Background(), app)
	if err != nil {
		f.t.Fatal(err)
	}
	ws, err := f.db.WorkerList(context.Background(), a.ID, db.Now())
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, w := range ws {
		if w.DisconnectedAt == nil {
			out = append(out, w.ServerID)
		}
	}
	sort.Strings(out)
	return out
}

// settled waits until the app has a live owner (other than notOn) that
// all its agents are connected to, and returns the owner.
func (f *fleet) settled(app, notOn string) string {
	f.t.Helper()
	var owner string
	ok := testkit.Poll(90*time.Second, func() bool {
		owner = f.owner(app)
		on := f.workersOn(app)
		return owner != "" && owner != notOn && len(on) == 2 && on[0] == owner && on[1] == owner
	})
	if !ok {
		f.t.Fatalf("app %s: owner %q, workers on %v", app, owner, f.workersOn(app))
	}
	return owner
}

// fires returns a job's fires by expected time, checking none is recorded
// twice and none ran twice.
func (f *fleet) fires(app, jobID string) []harness.Instance {
	f.t.Helper()
	list, err := f.api().Instances(app, jobID)
	if err != nil {
		f.t.Fatal(err)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ExpectedTriggerTime.Before(*list[j].ExpectedTriggerTime) })
	for i := 1; i < len(list); i++ {
		if list[i].ExpectedTriggerTime.Equal(*list[i-1].ExpectedTriggerTime) {
			f.t.Errorf("app %s job %s: the fire at %v is recorded twice", app, jobID, *list[i].ExpectedTriggerTime)
		}
	}
	return list
}

func (f *fleet) assertNothingRanTwice() {
	f.t.Helper()
	for _, app := range f.apps {
		a, _ := f.db.AppGetByName(context.Background(), app)
		n, err := f.db.InstanceCountRunTwice(context.Background(), a.ID)
		if err != nil || n != 0 {
			f.t.Errorf("app %s: %d instances ran twice (%v)", app, n, err)
		}
	}
}

// TestClusterFailover: three servers, three apps with two agents each and
// thirty every-second jobs. Kill -9 an owner, SIGTERM another, add a fourth
// server, cut an owner off from PostgreSQL: apps keep firing from another
// server, no fire is recorded or run twice, missed fires follow the misfire
// policy, and no agent is ever restarted.
func TestClusterFailover(t *testing.T) {
	t.Parallel()
	clusterFailover(t, newFleet(t, 3))
}

// TestClusterFailoverThroughPgBouncer is TestClusterFailover with every
// server connected through PgBouncer in transaction pooling mode, which
// keeps no session for a client: hints between servers fall back to
// polling (no LISTEN/NOTIFY), the migrations run once though three
// migrators start at once, and no session state is relied on.
func TestClusterFailoverThroughPgBouncer(t *testing.T) {
	t.Parallel()
	if harness.PgBouncerPath() == "" {
		// Failing, not skipping: `make test` installs it, so a missing one
		// is a broken set-up, and a skipped proof would pass unnoticed.
		t.Fatal("pgbouncer is not installed, and this test needs it: `make test-deps` installs Debian's pgbouncer (apt-get install -y pgbouncer)")
	}
	f := newFleetVia(t, 3, true)
	for _, s := range f.servers {
		if !strings.Contains(s.Output(), "transaction pooling") {
			t.Errorf("server %s did not say it polls instead of listening behind the transaction pooler:\n%s", s.id, tail(s.Output(), 20))
		}
	}
	clusterFailover(t, f)
}

// migrateAtOnce migrates the database of url from n connections at once
// and checks that each migration was applied once.
func migrateAtOnce(t *testing.T, url string, n int) {
	t.Helper()
	ctx := context.Background()
	errs := make(chan error, n)
	for range n {
		d, err := db.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		go func() { errs <- d.Migrate(ctx) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("migrating through PgBouncer: %v", err)
		}
	}
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	var applied, distinct int
	if err := d.Bun().NewRaw("SELECT count(*), count(DISTINCT name) FROM jobwheel_migrations").Scan(ctx, &applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied == 0 || applied != distinct {
		t.Fatalf("%d migrations recorded through PgBouncer, %d distinct; want each once", applied, distinct)
	}
}

// clusterFailover is TestClusterFailover's story on a fleet of three.
func clusterFailover(t *testing.T, f *fleet) {
	for _, app := range []string{"alpha", "beta", "gamma"} {
		f.addApp(app, 10)
	}
	// The apps spread over the servers, one each.
	owners := map[string]string{}
	if !testkit.Poll(90*time.Second, func() bool {
		used := map[string]bool{}
		for _, app := range f.apps {
			owners[app] = f.owner(app)
			used[owners[app]] = true
		}
		return len(used) == 3 && !used[""]
	}) {
		t.Fatalf("the apps did not spread over the three servers: %v", owners)
	}
	for _, app := range f.apps {
		f.settled(app, "")
	}
	t.Logf("owners: %v", owners)
	harness.Elapse(t, 5*time.Second, "every-second jobs firing on their owners")

	// (1) kill -9 the owner of alpha: another server takes it when its
	// lease runs out; the agents follow; the missed seconds follow
	// FIRE_ONCE: one catch-up run per job (none if the lease ran out so
	// soon that no second was missed).
	victim := f.server(owners["alpha"])
	killed := time.Now()
	victim.Kill()
	newOwner := f.settled("alpha", victim.id)
	t.Logf("alpha: %s killed; %s owns it and its agents after %v", victim.id, newOwner, time.Since(killed).Round(time.Millisecond))
	harness.Elapse(t, 5*time.Second, "alpha's jobs firing on the new owner")
	for _, job := range f.jobs["alpha"] {
		list := f.fires("alpha", job)
		// A fire the new owner first sees less than the misfire threshold
		// (2 s) late is no misfire: it is recorded on its second as usual.
		// When the lease ran out soon after the kill, every second is so
		// recorded and there is nothing to catch up; otherwise the seconds
		// missed are one hole in the grid and FIRE_ONCE runs once for it.
		catchUps, hole := 0, false
		var prev *time.Time
		for _, in := range list {
			switch {
			case in.TriggerType == "MISFIRE" && in.Status == "SUCCEEDED":
				catchUps++
			case in.TriggerType == "SCHEDULE":
				if prev != nil && in.ExpectedTriggerTime.Sub(*prev) > time.Second {
					hole = true
				}
				prev = in.ExpectedTriggerTime
			}
		}
		want := 0
		if hole {
			want = 1
		}
		if catchUps != want {
			var story []string
			for _, in := range list {
				if in.ExpectedTriggerTime.After(killed.Add(-8*time.Second)) && in.ExpectedTriggerTime.Before(killed.Add(25*time.Second)) {
					story = append(story, fmt.Sprintf("%s %s %s %s", in.ExpectedTriggerTime.Format("15:04:05"), in.TriggerType, in.Status, in.Reason))
				}
			}
			t.Errorf("alpha job %s: %d catch-up runs after the kill at %s; FIRE_ONCE promises %d:\n%s", job, catchUps,
				killed.Format("15:04:05.000"), want, strings.Join(story, "\n"))
		}
	}

	// (2) SIGTERM the owner of an app the kill did not touch: it hands the
	// app off as it goes, so no fire is missed at all.
	var graceful string
	for _, app := range f.apps {
		if o := f.owner(app); app != "alpha" && o != newOwner {
			graceful = app
		}
	}
	if graceful == "" {
		graceful = "beta"
	}
	leaving := f.server(f.owner(graceful))
	if err := leaving.Stop(harness.StopTimeout); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	heir := f.settled(graceful, leaving.id)
	t.Logf("%s: %s stopped; %s owns it and its agents after %v", graceful, leaving.id, heir, time.Since(stopped).Round(time.Millisecond))
	harness.Elapse(t, 5*time.Second, graceful+"'s jobs firing on its heir")
	for _, job := range f.jobs[graceful] {
		list := f.fires(graceful, job)
		for i, in := range list {
			if in.TriggerType == "MISFIRE" || in.Reason == "MISFIRE" {
				t.Errorf("%s job %s: a fire at %v was missed across a graceful hand-off (%s %s)", graceful, job, *in.ExpectedTriggerTime, in.TriggerType, in.Status)
			}
			if i > 0 && in.ExpectedTriggerTime.Sub(*list[i-1].ExpectedTriggerTime) != time.Second {
				t.Errorf("%s job %s: no fire between %v and %v", graceful, job, *list[i-1].ExpectedTriggerTime, *in.ExpectedTriggerTime)
			}
		}
	}

	// (3) A new server joins the one left: it receives a fair share of the
	// apps (once they have been held long enough not to bounce), and their
	// agents move to it by themselves, never restarted.
	fourth := f.addServer()
	var moved string
	if !testkit.Poll(120*time.Second, func() bool {
		for _, app := range f.apps {
			if f.owner(app) == fourth.id {
				on := f.workersOn(app)
				if len(on) == 2 && on[0] == fourth.id && on[1] == fourth.id {
					moved = app
					return true
				}
			}
		}
		return false
	}) {
		owned := map[string]string{}
		for _, app := range f.apps {
			owned[app] = f.owner(app)
		}
		t.Fatalf("the fourth server received no app: owners %v", owned)
	}
	t.Logf("%s moved to the new server %s", moved, fourth.id)
	for app, agents := range f.agents {
		for _, a := range agents {
			if a.Exited() {
				t.Errorf("an agent of %s exited (it should never need a restart):\n%s", app, tail(a.Output(), 20))
			}
		}
	}

	// (4) Cut the owner of an app off from PostgreSQL (its process and its
	// agents' connections stay up): it stops scheduling before its lease
	// can expire, and the other server takes the app over.
	target := moved
	cutID := f.owner(target)
	cut := f.server(cutID)
	cut.proxy.Blackhole()
	cutAt := time.Now()
	if !testkit.Poll(90*time.Second, func() bool {
		return strings.Contains(cut.Output(), "trust window closed without a renewal")
	}) {
		t.Fatalf("the cut-off server never stopped trusting its leases:\n%s", tail(cut.Output(), 40))
	}
	successor := f.settled(target, cutID)
	t.Logf("%s: %s cut off; %s owns it and its agents after %v", target, cutID, successor, time.Since(cutAt).Round(time.Millisecond))
	cut.proxy.Heal()

	// The API tells who owns what, as the leases do. The API and the
	// leases are read a moment apart, and a hand-off (the cluster still
	// rebalancing after the cut-off) leaves an app without an owner for a
	// moment: the two are compared until they agree on every app owned.
	var mismatches []string
	agreed := testkit.Poll(connect, func() bool {
		var view struct {
			Apps []struct {
				Name  string
				Owner *struct{ ID string }
			}
			Servers []struct {
				ID    string
				Alive bool
				Apps  []struct{ Name string }
			}
		}
		if err := f.api().Do(`{ apps { name owner { id } } servers { id alive apps { name } } }`, nil, &view); err != nil {
			t.Fatal(err)
		}
		mismatches = nil
		for _, a := range view.Apps {
			if want := f.owner(a.Name); a.Owner == nil || a.Owner.ID != want {
				mismatches = append(mismatches, fmt.Sprintf("apps { owner } of %s = %+v; the lease says %q", a.Name, a.Owner, want))
			}
		}
		held := 0
		for _, s := range view.Servers {
			for _, a := range s.Apps {
				held++
				if f.owner(a.Name) != s.ID {
					mismatches = append(mismatches, fmt.Sprintf("servers { apps } lists %s under %s; the lease says %s", a.Name, s.ID, f.owner(a.Name)))
				}
			}
		}
		if held != len(f.apps) {
			mismatches = append(mismatches, fmt.Sprintf("servers { apps } lists %d apps; want %d", held, len(f.apps)))
		}
		return len(mismatches) == 0
	})
	if !agreed {
		for _, m := range mismatches {
			t.Error(m)
		}
	}

	harness.Elapse(t, 3*time.Second, "the jobs firing after the last hand-off")
	f.assertNothingRanTwice()
	for _, app := range f.apps {
		for _, job := range f.jobs[app] {
			f.fires(app, job) // asserts no fire is recorded twice
		}
	}
}

// TestDatabaseRestart: PostgreSQL goes away (every connection dropped, new
// ones refused) for several seconds and comes back, as in a database
// restart. The server recovers by itself: jobs fire again, missed fires
// follow the misfire policy, and nothing is recorded or run twice.
func TestDatabaseRestart(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 1)
	f.addApp("delta", 5)
	f.settled("delta", "")
	harness.Elapse(t, 4*time.Second, "delta's jobs firing before the outage")

	srv := f.servers[0]
	srv.proxy.Drop()
	downAt := time.Now()
	harness.Elapse(t, 8*time.Second, "the database outage")
	srv.proxy.Heal()
	upAt := time.Now()

	// It serves again, and every job fires again after the outage.
	if !testkit.Poll(90*time.Second, func() bool {
		for _, job := range f.jobs["delta"] {
			list, err := f.api().Instances("delta", job)
			if err != nil {
				return false
			}
			fresh := false
			for _, in := range list {
				if in.Status == "SUCCEEDED" && in.ExpectedTriggerTime.After(upAt.Add(2*time.Second)) {
					fresh = true
				}
			}
			if !fresh {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("jobs did not fire again after the database came back:\n%s", tail(srv.Output(), 40))
	}
	for _, job := range f.jobs["delta"] {
		catchUps := 0
		var story []string
		for _, in := range f.fires("delta", job) { // asserts nothing recorded twice
			if in.TriggerType == "MISFIRE" {
				catchUps++
			}
			if in.ExpectedTriggerTime.After(downAt.Add(-6 * time.Second)) {
				actual := "-"
				if in.ActualTriggerTime != nil {
					actual = in.ActualTriggerTime.Format("15:04:05.000")
				}
				story = append(story, fmt.Sprintf("%s %s %s %s actual=%s", in.ExpectedTriggerTime.Format("15:04:05"), in.TriggerType, in.Status, in.Reason, actual))
			}
		}
		if catchUps > 1 {
			t.Errorf("job %s: %d catch-up runs after a %v outage (down at %s, up at %s); FIRE_ONCE promises at most 1:\n%s", job, catchUps,
				upAt.Sub(downAt).Round(time.Second), downAt.Format("15:04:05.000"), upAt.Format("15:04:05.000"), strings.Join(story, "\n"))
		}
	}
	f.assertNothingRanTwice()
}
