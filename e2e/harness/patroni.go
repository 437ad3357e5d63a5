package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// An HA PostgreSQL for the failover tests and the soak's database faults
// (issue 30): Patroni managing a primary and a synchronous standby, with
// etcd as its DCS, reached through HAProxy, all Debian packages on
// loopback, each with its own ports and directories under one temp dir.
//
// The access path is HAProxy with Patroni's REST role check (GET /primary
// answers 200 on the leader only), as production runs it. The other way a
// client finds the read-write node, a multi-host connection string with
// target_session_attrs=read-write, is not open to jobwheel: bun's pgdriver
// takes one host (pgdriver.WithAddr) and has no target_session_attrs. With
// on-marked-down shutdown-sessions, HAProxy also closes the connections to
// a node that stops being the primary, so the servers' pools see the
// failover at once rather than through a TCP timeout.

// PatroniTools lists the Patroni tier's programs that are missing ("" if
// none): `make system-deps` installs them (apt-get install -y patroni
// etcd-server haproxy).
func PatroniTools() string {
	var missing []string
	for _, p := range []string{"patroni", "etcd", "haproxy"} {
		if patroniBin(p) == "" {
			missing = append(missing, p)
		}
	}
	if _, err := os.Stat(pgBin("postgres")); err != nil {
		missing = append(missing, pgBin("postgres"))
	}
	return strings.Join(missing, " ")
}

func patroniBin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/bin", "/usr/sbin"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// pgBin is a PostgreSQL 15 server program (Debian's layout).
func pgBin(name string) string { return filepath.Join("/usr/lib/postgresql/15/bin", name) }

// PatroniNode is one PostgreSQL node and the Patroni that manages it.
type PatroniNode struct {
	Name    string
	PGAddr  string // 127.0.0.1:port of its PostgreSQL
	APIAddr string // 127.0.0.1:port of its Patroni REST API
	dataDir string
	config  string
	proc    *Process
}

// Patroni is a running HA PostgreSQL cluster.
type Patroni struct {
	tb    TB
	dir   string
	Nodes []*PatroniNode
	// URL reaches the primary through HAProxy: the database URL the
	// servers are given.
	URL string
	// Front is HAProxy's address.
	Front string
	// etcd and HAProxy run for the cluster's life.
	etcd, haproxy *Process
	cred          *syscall.Credential
}

// Patroni's timing, tuned down from its defaults (ttl 30 s, loop_wait
// 10 s, retry_timeout 10 s) so a dead primary's leader key expires in a
// few seconds; docs/database-ha.md explains each. Patroni requires
// loop_wait + 2×retry_timeout ≤ ttl.
const (
	patroniTTL          = 5
	patroniLoopWait     = 1
	patroniRetryTimeout = 2
)

// StartPatroni starts etcd, two Patroni nodes (the first bootstraps the
// primary, the second clones it and becomes its synchronous standby) and
// HAProxy, and waits until the primary answers through HAProxy and the
// standby is streaming synchronously. PostgreSQL refuses to run as root:
// as root, Patroni (and so PostgreSQL) runs as the postgres user.
// Everything is stopped and removed when the test ends.
func StartPatroni(tb TB) *Patroni {
	tb.Helper()
	if missing := PatroniTools(); missing != "" {
		tb.Fatalf("the HA PostgreSQL tier needs %s: run `make system-deps` (apt-get install -y patroni etcd-server haproxy)", missing)
	}
	dir, err := os.MkdirTemp("", "jobwheel-patroni-")
	if err != nil {
		tb.Fatalf("patroni: %v", err)
	}
	p := &Patroni{tb: tb, dir: dir}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Fatalf("patroni: running as root and there is no postgres user to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chmod(dir, 0o755); err != nil {
			tb.Fatalf("patroni: %v", err)
		}
	}
	// PostgreSQL's directories, sockets and pgpass files live in run/,
	// which its user owns.
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		tb.Fatalf("patroni: %v", err)
	}
	if p.cred != nil {
		if err := os.Chown(run, int(p.cred.Uid), int(p.cred.Gid)); err != nil {
			tb.Fatalf("patroni: %v", err)
		}
	}

	etcdClient, etcdPeer := FreeAddr(tb), FreeAddr(tb)
	p.etcd = startProcess(tb, "etcd", patroniBin("etcd"), []string{
		"--name", "e1", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", "http://" + etcdClient, "--advertise-client-urls", "http://" + etcdClient,
		"--listen-peer-urls", "http://" + etcdPeer, "--initial-advertise-peer-urls", "http://" + etcdPeer,
		"--initial-cluster", "e1=http://" + etcdPeer, "--log-level", "warn",
	}, nil, dir)
	tb.Cleanup(func() { p.etcd.Kill() })
	if !testkit.Poll(20*time.Second, func() bool { return httpOK("http://"+etcdClient+"/health") == nil }) {
		tb.Fatalf("etcd did not become healthy:\n%s", p.etcd.Output())
	}

	for i := 1; i <= 2; i++ {
		n := &PatroniNode{Name: fmt.Sprintf("pg%d", i), PGAddr: FreeAddr(tb), APIAddr: FreeAddr(tb)}
		n.dataDir = filepath.Join(run, n.Name)
		n.config = filepath.Join(dir, n.Name+".yml")
		if err := os.WriteFile(n.config, []byte(p.nodeConfig(n, etcdClient)), 0o644); err != nil {
			tb.Fatalf("patroni: %v", err)
		}
		p.Nodes = append(p.Nodes, n)
	}
	tb.Cleanup(func() {
		for _, n := range p.Nodes {
			p.killNode(n)
		}
	})
	// The first node bootstraps alone, so it is the primary; then the
	// second clones it.
	p.startNode(p.Nodes[0])
	// A bound, not a measure: initdb alone takes a minute on a loaded
	// 2-core machine.
	if !testkit.Poll(3*time.Minute, func() bool {
		return p.Nodes[0].proc.Exited() || httpOK("http://"+p.Nodes[0].APIAddr+"/primary") == nil
	}) || p.Nodes[0].proc.Exited() {
		tb.Fatalf("patroni did not bootstrap a primary:\n%s", p.Nodes[0].proc.Output())
	}
	p.startNode(p.Nodes[1])

	front := FreeAddr(tb)
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(p.haproxyConfig(front)), 0o644); err != nil {
		tb.Fatalf("haproxy: %v", err)
	}
	p.haproxy = startProcess(tb, "haproxy", patroniBin("haproxy"), []string{"-db", "-f", cfg}, nil, dir)
	tb.Cleanup(func() { p.haproxy.Kill() })
	p.Front = front
	p.URL = fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", front)
	p.WaitHealthy()
	tb.Logf("patroni: primary %s, synchronous standby %s, through haproxy at %s (etcd %s)", p.Nodes[0].Name, p.Nodes[1].Name, front, etcdClient)
	return p
}

func (p *Patroni) nodeConfig(n *PatroniNode, etcd string) string {
	// Trust on loopback: the tier is a test's, reached only from this
	// machine. Passwords are set because Patroni expects them; trust
	// ignores them.
	return fmt.Sprintf(`scope: jobwheel
name: %[1]s
log:
  # HAProxy's checks end with a reset, which Patroni logs as a warning
  # with a traceback twice a second; so do a short ttl's watchdog notes.
  level: ERROR
restapi:
  listen: %[2]s
  connect_address: %[2]s
etcd3:
  hosts: %[3]s
bootstrap:
  dcs:
    ttl: %[4]d
    loop_wait: %[5]d
    retry_timeout: %[6]d
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      parameters:
        synchronous_commit: "on"
        wal_log_hints: "on"
        max_connections: 300
        fsync: "off"
        wal_keep_size: 256MB
  initdb:
    - encoding: UTF8
    - auth: trust
    - no-sync
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: %[7]s
  connect_address: %[7]s
  data_dir: %[8]s
  bin_dir: /usr/lib/postgresql/15/bin
  pgpass: %[9]s
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: postgres
      password: postgres
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: %[10]s
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
`, n.Name, n.APIAddr, etcd, patroniTTL, patroniLoopWait, patroniRetryTimeout, n.PGAddr, n.dataDir,
		filepath.Join(p.dir, "run", n.Name+".pgpass"), filepath.Join(p.dir, "run"))
}

func (p *Patroni) haproxyConfig(front string) string {
	var servers []string
	for _, n := range p.Nodes {
		_, api, _ := net.SplitHostPort(n.APIAddr)
		servers = append(servers, fmt.Sprintf("  server %s %s check port %s", n.Name, n.PGAddr, api))
	}
	// A check every 500 ms, down after 2 failures, up after 1 success:
	// the primary's death is seen within a second of Patroni's REST API
	// going, a promotion within half a second of Patroni reporting it.
	return fmt.Sprintf(`global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout check 1s
listen primary
  bind %s
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
%s
`, front, strings.Join(servers, "\n"))
}

func (p *Patroni) startNode(n *PatroniNode) {
	p.tb.Helper()
	n.proc = startProcessAs(p.tb, "patroni-"+n.Name, patroniBin("patroni"), []string{n.config}, p.cred, p.dir)
}

// startProcessAs is startProcess run as cred's user (nil: as this one),
// in a process group of its own.
func startProcessAs(tb TB, name, bin string, args []string, cred *syscall.Credential, dir string) *Process {
	tb.Helper()
	env := []string{"HOME=" + dir}
	if cred == nil {
		return startProcess(tb, name, bin, args, env, dir)
	}
	return startProcessWith(tb, name, bin, args, env, dir, &syscall.SysProcAttr{Credential: cred, Setpgid: true})
}

// Primary returns the node Patroni's REST API reports as the primary, or
// nil if none does.
func (p *Patroni) Primary() *PatroniNode {
	for _, n := range p.Nodes {
		if n.proc != nil && !n.proc.Exited() && httpOK("http://"+n.APIAddr+"/primary") == nil {
			return n
		}
	}
	return nil
}

// WaitHealthy waits until one node is the primary, every other running
// node streams from it as its synchronous standby, and the primary answers
// through HAProxy.
func (p *Patroni) WaitHealthy() {
	p.tb.Helper()
	var last string
	if !testkit.Poll(120*time.Second, func() bool {
		pr := p.Primary()
		if pr == nil {
			last = "no primary"
			return false
		}
		for _, n := range p.Nodes {
			if n != pr && n.proc != nil && !n.proc.Exited() && httpOK("http://"+n.APIAddr+"/sync") != nil {
				last = n.Name + " is not the synchronous standby yet"
				return false
			}
		}
		if err := pgAnswers(p.Front); err != nil {
			last = "through haproxy: " + err.Error()
			return false
		}
		return true
	}) {
		p.tb.Fatalf("patroni cluster did not become healthy (%s); cluster: %s", last, p.clusterState())
	}
}

// clusterState is Patroni's /cluster answer, for failure messages.
func (p *Patroni) clusterState() string {
	for _, n := range p.Nodes {
		if n.proc == nil || n.proc.Exited() {
			continue
		}
		resp, err := http.Get("http://" + n.APIAddr + "/cluster")
		if err != nil {
			continue
		}
		var v any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		_ = resp.Body.Close()
		b, _ := json.Marshal(v)
		return string(b)
	}
	return "(no Patroni answers)"
}

// KillPrimary kills -9 the primary's Patroni and every PostgreSQL process
// of its node, as a machine dying would, and returns the node. The
// standby's Patroni promotes it once the leader key expires (ttl).
func (p *Patroni) KillPrimary() *PatroniNode {
	p.tb.Helper()
	n := p.Primary()
	if n == nil {
		p.tb.Fatalf("KillPrimary: no primary; cluster: %s", p.clusterState())
	}
	p.killNode(n)
	return n
}

// killNode kills -9 a node's Patroni and its PostgreSQL: Patroni starts
// the postmaster in a session of its own, so it is found by its pid file,
// and its backends by their parent.
func (p *Patroni) killNode(n *PatroniNode) {
	if n.proc == nil {
		return
	}
	pm := postmasterPid(n.dataDir)
	if !n.proc.Exited() {
		_ = syscall.Kill(-n.proc.Pid(), syscall.SIGKILL) // its process group
		n.proc.Kill()
	}
	if pm > 0 {
		children := childrenOf(pm)
		_ = syscall.Kill(pm, syscall.SIGKILL)
		for _, c := range children {
			_ = syscall.Kill(c, syscall.SIGKILL)
		}
	}
}

// Rejoin starts a killed node's Patroni again: it rewinds its PostgreSQL
// (pg_rewind) or clones it afresh, and follows the current primary.
func (p *Patroni) Rejoin(n *PatroniNode) {
	p.tb.Helper()
	if n.proc != nil && !n.proc.Exited() {
		p.tb.Fatalf("Rejoin: %s is still running", n.Name)
	}
	// A SIGKILLed postmaster's pid file stays; Patroni checks the pid is
	// not a PostgreSQL any more and starts it.
	p.startNode(n)
}

// Switchover asks Patroni for a planned switchover to the standby and
// returns the new primary once HAProxy routes to it.
func (p *Patroni) Switchover() *PatroniNode {
	p.tb.Helper()
	old := p.Primary()
	if old == nil {
		p.tb.Fatalf("Switchover: no primary; cluster: %s", p.clusterState())
	}
	var to *PatroniNode
	for _, n := range p.Nodes {
		if n != old {
			to = n
		}
	}
	body := fmt.Sprintf(`{"leader":%q,"candidate":%q}`, old.Name, to.Name)
	var err error
	var status int
	var msg string
	// The candidate must be the synchronous standby; right after a rejoin
	// it may not be yet, and Patroni refuses: ask again until it accepts.
	if !testkit.Poll(60*time.Second, func() bool {
		var resp *http.Response
		resp, err = http.Post("http://"+old.APIAddr+"/switchover", "application/json", strings.NewReader(body))
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_ = resp.Body.Close()
		status, msg = resp.StatusCode, string(b)
		return status == http.StatusOK
	}) {
		p.tb.Fatalf("switchover %s → %s refused: %v %d %s; cluster: %s", old.Name, to.Name, err, status, msg, p.clusterState())
	}
	if !testkit.Poll(60*time.Second, func() bool { return p.Primary() == to }) {
		p.tb.Fatalf("switchover: %s did not become the primary; cluster: %s", to.Name, p.clusterState())
	}
	return to
}

func httpOK(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func postmasterPid(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	return pid
}

// childrenOf lists the processes whose parent is pid (from /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so split after ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, c)
		}
	}
	return out
}

// pgAnswers checks that PostgreSQL at addr accepts a connection and a
// query.
func pgAnswers(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	d, err := db.Open(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
	if err != nil {
		return err
	}
	return d.Close()
}
