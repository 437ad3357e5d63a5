package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// A run's history — its tasks and its log lines — is partitioned on
// PostgreSQL by instance id, every table with the same bounds: a
// generation is a range of instance ids, and all of one instance's rows
// live in the partitions of its generation (tasks_g<lo>,
// instance_logs_g<lo>). The server creates generations ahead
// (HistoryGenerationEnsure, run by server/platform/partitions), and
// retention drops a generation whose instances are all past retention
// (HistoryGenerationDrop). SQLite is not partitioned: both are no-ops there.
// See migrations/20261129420000_partitioned_history and docs/retention.md.

// historyTables are the tables partitioned by generation.
var historyTables = []string{"tasks", "instance_logs"}

// partitionLockKey names the advisory lock that serializes creating and
// dropping generations among the servers of one schema.
const partitionLockKey = 0x6a77706e // "jwpn"

// HistoryGeneration is a range of instance ids whose history has its own
// partitions: [Lo, Hi). The first generation, made of the tables that
// existed before partitioning, starts at math.MinInt64.
type HistoryGeneration struct {
	Name   string // the partitions' suffix: g<lo>
	Lo, Hi int64
}

var boundRE = regexp.MustCompile(`FROM \(([^)]*)\) TO \(([^)]*)\)`)

func parseBound(s string) (int64, error) {
	s = strings.Trim(strings.TrimSpace(s), "'")
	switch s {
	case "MINVALUE":
		return math.MinInt64, nil
	case "MAXVALUE":
		return math.MaxInt64, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// HistoryGenerationList lists the generations in order (none on SQLite).
func (s *Store) HistoryGenerationList(ctx context.Context) ([]HistoryGeneration, error) {
	if s.dialect != Postgres {
		return nil, nil
	}
	var rows []struct {
		Name  string `bun:"relname"`
		Bound string `bun:"bound"`
	}
	err := s.idb.NewRaw(`SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
		FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'tasks'::regclass`).Scan(ctx, &rows)
	if err != nil {
		return nil, wrap(err, "listing history generations")
	}
	out := make([]HistoryGeneration, 0, len(rows))
	for _, r := range rows {
		m := boundRE.FindStringSubmatch(r.Bound)
		if m == nil {
			return nil, fmt.Errorf("history partition %s: unexpected bound %q", r.Name, r.Bound)
		}
		lo, err1 := parseBound(m[1])
		hi, err2 := parseBound(m[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("history partition %s: unexpected bound %q", r.Name, r.Bound)
		}
		out = append(out, HistoryGeneration{Name: strings.TrimPrefix(r.Name, "tasks_"), Lo: lo, Hi: hi})
	}
	slices.SortFunc(out, func(a, b HistoryGeneration) int { return cmp.Compare(a.Lo, b.Lo) })
	return out, nil
}

// nextInstanceID is the id the next instance will get (about: a
// concurrent insert may have taken it).
func (s *Store) nextInstanceID(ctx context.Context) (int64, error) {
	var last int64
	var called bool
	err := s.idb.NewRaw(`SELECT last_value, is_called FROM instances_id_seq`).Scan(ctx, &last, &called)
	if err != nil {
		return 0, wrap(err, "reading the instance id sequence")
	}
	if called {
		return last + 1, nil
	}
	return last, nil
}

// GenerationSizing says how wide new generations are: wide enough for
// the ids the current one used per Span (measured from when its first
// instance was created), at least MinWidth, at most MaxWidth, rounded up
// to a multiple of MinWidth.
//
// Ahead is how many ids past the next one must always be covered, however
// the current generation filled: a burst (a backfill, thousands of jobs
// firing at once) can use ids far faster than the generation's average,
// and an instance whose id no partition covers cannot have tasks until the
// next check. Generations are created until the ids covered beyond the
// next one reach Ahead, or what the last RecentIDs ids took per AheadFor,
// whichever is more. Empty partitions cost nothing.
type GenerationSizing struct {
	Span     time.Duration
	MinWidth int64
	MaxWidth int64
	Ahead    int64
	// AheadFor and RecentIDs: cover the ids the recent rate uses in
	// AheadFor (measured over the last RecentIDs instances).
	AheadFor  time.Duration
	RecentIDs int64
}

// width is the next generation's width, from the current generation's
// rate of use.
func (z GenerationSizing) width(used int64, elapsed time.Duration) int64 {
	w := z.MinWidth
	if elapsed > 0 && used > 0 {
		perSpan := float64(used) * float64(z.Span) / float64(elapsed)
		if perSpan > float64(z.MaxWidth) {
			perSpan = float64(z.MaxWidth)
		}
		if int64(perSpan) > w {
			w = int64(perSpan)
		}
	}
	if r := w % z.MinWidth; r != 0 {
		w += z.MinWidth - r
	}
	return w
}

// HistoryGenerationEnsure makes sure the generation after the one that
// takes new instances exists, creating what is missing: after it, new
// instances always have a generation ready beyond the current one. It is
// idempotent, and safe from several servers at once (an advisory lock
// serializes them; each sees what the other created). It returns the
// generations it created. A no-op on SQLite.
func (s *Store) HistoryGenerationEnsure(ctx context.Context, now time.Time, z GenerationSizing) ([]HistoryGeneration, error) {
	if s.dialect != Postgres {
		return nil, nil
	}
	var created []HistoryGeneration
	err := s.inTx(ctx, func(ctx context.Context, tx *Store) error {
		if _, err := tx.idb.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))", int32(partitionLockKey)); err != nil {
			return wrap(err, "locking history generations")
		}
		gens, err := tx.HistoryGenerationList(ctx)
		if err != nil {
			return err
		}
		if len(gens) == 0 {
			return fmt.Errorf("the tasks table has no partitions: is the 20261129420000_partitioned_history migration applied?")
		}
		next, err := tx.nextInstanceID(ctx)
		if err != nil {
			return err
		}
		// The generation taking new instances, and when its first one came.
		cur := gens[len(gens)-1]
		for _, g := range gens {
			if next >= g.Lo && next < g.Hi {
				cur = g
				break
			}
		}
		var first struct {
			ID        int64     `bun:"id"`
			CreatedAt time.Time `bun:"created_at"`
		}
		lo := max(cur.Lo, 0)
		used, elapsed := int64(0), time.Duration(0)
		err = tx.idb.NewRaw(`SELECT id, created_at FROM instances WHERE id >= ? ORDER BY id LIMIT 1`, lo).Scan(ctx, &first.ID, &first.CreatedAt)
		if err == nil {
			used, elapsed = next-first.ID, now.Sub(first.CreatedAt)
		}
		width := z.width(used, elapsed)
		ahead, err := tx.idsAhead(ctx, now, next, z)
		if err != nil {
			return err
		}
		// Covering what is ahead takes a few generations, not hundreds of
		// the minimum width (a quiet server's generations are narrow).
		if w := ahead / 4; w > width {
			width = w + (z.MinWidth-w%z.MinWidth)%z.MinWidth
		}
		last := gens[len(gens)-1]
		// One generation beyond the current one, and beyond the next id
		// whatever happened (a burst past every bound).
		// A new partition takes the storage parameters (a fillfactor, say)
		// of the newest one: PostgreSQL keeps none on a partitioned parent.
		with := map[string]string{}
		for _, t := range historyTables {
			var opts []string
			if err := tx.idb.NewRaw("SELECT COALESCE(reloptions, '{}') FROM pg_class WHERE oid = to_regclass(?)",
				t+"_"+last.Name).Scan(ctx, pgdialect.Array(&opts)); err != nil {
				return wrap(err, "reading the storage parameters of "+t+"_"+last.Name)
			}
			if len(opts) > 0 {
				with[t] = " WITH (" + strings.Join(opts, ", ") + ")"
			}
		}
		for last.Hi <= cur.Hi || last.Hi <= next+ahead {
			g := HistoryGeneration{Name: "g" + strconv.FormatInt(last.Hi, 10), Lo: last.Hi, Hi: last.Hi + width}
			for _, t := range historyTables {
				if _, err := tx.idb.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS ? PARTITION OF ? FOR VALUES FROM (?) TO (?)"+with[t],
					bun.Ident(t+"_"+g.Name), bun.Ident(t), g.Lo, g.Hi); err != nil {
					return wrap(err, "creating history partition "+t+"_"+g.Name)
				}
			}
			created = append(created, g)
			last = g
		}
		return nil
	})
	return created, err
}

// idsAhead is how many ids past next must be covered now: z.Ahead, or the
// ids the last z.RecentIDs instances' rate uses in z.AheadFor, at most
// z.MaxWidth.
func (s *Store) idsAhead(ctx context.Context, now time.Time, next int64, z GenerationSizing) (int64, error) {
	ahead := z.Ahead
	if z.RecentIDs <= 0 || z.AheadFor <= 0 || next <= 1 {
		return ahead, nil
	}
	var from struct {
		ID        int64     `bun:"id"`
		CreatedAt time.Time `bun:"created_at"`
	}
	err := s.idb.NewRaw(`SELECT id, created_at FROM instances WHERE id >= ? ORDER BY id LIMIT 1`,
		max(next-z.RecentIDs, 0)).Scan(ctx, &from.ID, &from.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return ahead, nil
	}
	if err != nil {
		return 0, wrap(err, "reading the recent rate of instances")
	}
	elapsed := now.Sub(from.CreatedAt)
	if elapsed < time.Second {
		elapsed = time.Second
	}
	recent := float64(next-from.ID) * float64(z.AheadFor) / float64(elapsed)
	if recent > float64(z.MaxWidth) {
		recent = float64(z.MaxWidth)
	}
	return max(ahead, int64(recent)), nil
}

// inTx runs fn in a transaction, or in the one s already is.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx *Store) error) error {
	if _, ok := s.idb.(bun.Tx); ok {
		return fn(ctx, s)
	}
	db, ok := s.idb.(*bun.DB)
	if !ok {
		return fmt.Errorf("db: no transaction to run in")
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, &Store{idb: tx, dialect: s.dialect})
	})
}

// Retention says how long instances are kept: an app's RetentionDays if
// it has any, else Default (0: forever).
type Retention struct {
	Default time.Duration
	Now     time.Time
}

// HistoryDropped is what dropping a generation removed.
type HistoryDropped struct {
	Generation HistoryGeneration
	Instances  int64 // the instance rows deleted after the partitions
	Tasks      int64 // from task_counts, read before the drop
	LogLines   int64 // the log sequence numbers handed out
	// Apps are the apps whose instances were in it, with their count.
	Apps map[int64]int64
}

// unfinishedOrKeptSQL matches an instance (i, its app a) retention keeps:
// not finished, or finished within its app's retention.
const unfinishedOrKeptSQL = `(i.finished_at IS NULL OR i.status NOT IN ('SUCCEEDED', 'FAILED', 'STOPPED', 'CANCELED')
	OR CASE WHEN a.retention_days IS NOT NULL THEN i.finished_at >= ?::timestamptz - make_interval(days => a.retention_days)
		WHEN ?::bigint = 0 THEN TRUE
		ELSE i.finished_at >= ?::timestamptz - make_interval(secs => ?::bigint) END)`

// HistoryGenerationDrop drops generation g's partitions, in one statement,
// if every instance in it is finished and past its app's retention and no
// new instance can still land in it; then it deletes those instances' rows
// (batched: their tasks and lines are gone, so each row costs an index
// entry or two). It reports whether it dropped (false: some instance is
// still kept, or another server is at it), and what went. A no-op on
// SQLite.
func (s *Store) HistoryGenerationDrop(ctx context.Context, g HistoryGeneration, r Retention) (*HistoryDropped, error) {
	if s.dialect != Postgres {
		return nil, nil
	}
	var out *HistoryDropped
	err := s.inTx(ctx, func(ctx context.Context, tx *Store) error {
		var locked bool
		if err := tx.idb.NewRaw("SELECT pg_try_advisory_xact_lock(?, hashtext(current_schema()))", int32(partitionLockKey)).Scan(ctx, &locked); err != nil {
			return wrap(err, "locking history generations")
		}
		if !locked {
			return nil
		}
		next, err := tx.nextInstanceID(ctx)
		if err != nil {
			return err
		}
		if g.Hi > next {
			return nil // instances may still come into it
		}
		secs := int64(r.Default / time.Second)
		now := Stamp(r.Now)
		var kept bool
		if err := tx.idb.NewRaw(`SELECT EXISTS (SELECT 1 FROM instances AS i LEFT JOIN apps AS a ON a.id = i.app_id
			WHERE i.id >= ? AND i.id < ? AND `+unfinishedOrKeptSQL+`)`, g.Lo, g.Hi, now, secs, now, secs).Scan(ctx, &kept); err != nil {
			return wrap(err, "checking a history generation's retention")
		}
		if kept {
			return nil
		}
		d := &HistoryDropped{Generation: g, Apps: map[int64]int64{}}
		var perApp []struct {
			AppID int64 `bun:"app_id"`
			N     int64 `bun:"n"`
			Lines int64 `bun:"lines"`
		}
		if err := tx.idb.NewRaw(`SELECT app_id, COUNT(*) AS n, COALESCE(SUM(log_seq), 0) AS lines FROM instances
			WHERE id >= ? AND id < ? GROUP BY app_id`, g.Lo, g.Hi).Scan(ctx, &perApp); err != nil {
			return wrap(err, "counting a history generation's instances")
		}
		for _, p := range perApp {
			d.Apps[p.AppID] = p.N
			d.LogLines += p.Lines
		}
		if err := tx.idb.NewRaw(`SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE instance_id >= ? AND instance_id < ?`,
			g.Lo, g.Hi).Scan(ctx, &d.Tasks); err != nil {
			return wrap(err, "counting a history generation's tasks")
		}
		// Dropping a partition locks its parent for a moment; rather than
		// queue every task query behind a long one, give up and try at
		// the next pass.
		if _, err := tx.idb.ExecContext(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
			return wrap(err, "bounding the wait for the history tables' lock")
		}
		idents := make([]any, len(historyTables))
		marks := make([]string, len(historyTables))
		for i, t := range historyTables {
			idents[i], marks[i] = bun.Ident(t+"_"+g.Name), "?"
		}
		if _, err := tx.idb.ExecContext(ctx, "DROP TABLE IF EXISTS "+strings.Join(marks, ", "), idents...); err != nil {
			return wrap(err, "dropping history generation "+g.Name)
		}
		out = d
		return nil
	})
	if err != nil || out == nil {
		return nil, err
	}
	for ctx.Err() == nil {
		res, err := s.idb.NewDelete().Model((*Instance)(nil)).Where("id IN (?)",
			s.idb.NewSelect().Model((*Instance)(nil)).Column("id").Where("id >= ? AND id < ?", g.Lo, g.Hi).Limit(1000)).Exec(ctx)
		if err != nil {
			return out, wrap(err, "deleting the instances of a dropped history generation")
		}
		n, _ := res.RowsAffected()
		out.Instances += n
		if n < 1000 {
			break
		}
	}
	return out, nil
}
