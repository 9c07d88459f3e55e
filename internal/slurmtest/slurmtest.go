// Package slurmtest starts a single-node Slurm cluster for tests, from
// Debian's packages (munge, slurm-wlm): munged with its own key and
// socket, slurmctld and slurmd on localhost with a generated slurm.conf,
// everything in one folder the caller owns, nothing else on the machine
// touched. The daemons run in the foreground as its children and Stop
// ends each by its PID. It needs root (slurmd runs jobs as any user).
package slurmtest

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// binaries are what a cluster needs.
var binaries = []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol"}

// Available says why a cluster cannot start here (nil if it can).
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("slurmtest: not root")
	}
	for _, b := range binaries {
		if _, err := exec.LookPath(b); err != nil {
			return fmt.Errorf("slurmtest: %s not installed (apt-get install slurm-wlm munge)", b)
		}
	}
	return nil
}

// Cluster is a running one-node cluster.
type Cluster struct {
	Dir   string // its folder: key, sockets, state, logs
	Conf  string // slurm.conf
	procs []*exec.Cmd
	exits []chan error
}

// Start starts munged, slurmctld and slurmd in dir and waits (at most
// timeout) until the node is idle. On an error it has stopped what it
// started.
func Start(dir string, timeout time.Duration) (*Cluster, error) {
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf")}
	for _, d := range []string{"state", "spool", "log", "run", "munge"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("slurmtest: %w", err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400); err != nil {
		return nil, fmt.Errorf("slurmtest: %w", err)
	}
	deadline := time.Now().Add(timeout)
	socket := filepath.Join(dir, "munge", "munge.socket")
	err := c.start("munged", "-F", "--force", "--key-file="+filepath.Join(dir, "munge.key"), "--socket="+socket,
		"--pid-file="+filepath.Join(dir, "munge.pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge.seed"))
	if err == nil {
		err = c.wait(deadline, "munged's socket", func() bool { _, err := os.Stat(socket); return err == nil })
	}
	if err == nil {
		err = c.writeConf(socket)
	}
	if err == nil {
		err = c.start("slurmctld", "-D", "-f", c.Conf)
	}
	if err == nil {
		err = c.start("slurmd", "-D", "-f", c.Conf)
	}
	if err == nil {
		err = c.wait(deadline, "the node to be idle", func() bool {
			out, err := c.Command("sinfo", "-h", "-o", "%t").Output()
			return err == nil && strings.TrimSpace(string(out)) == "idle"
		})
	}
	if err != nil {
		c.Stop()
		return nil, fmt.Errorf("%w\n%s", err, c.Logs())
	}
	return c, nil
}

// start starts a daemon in the foreground, as a child.
func (c *Cluster) start(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("slurmtest: %s: %w", name, err)
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	c.procs, c.exits = append(c.procs, cmd), append(c.exits, exit)
	return nil
}

// wait polls cond until it holds, a daemon exits or the deadline passes.
func (c *Cluster) wait(deadline time.Time, what string, cond func() bool) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		for i, exit := range c.exits {
			select {
			case err := <-exit:
				exit <- err // for Stop
				return fmt.Errorf("slurmtest: %s exited (%v) while waiting for %s", c.procs[i].Path, err, what)
			default:
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slurmtest: no %s in time", what)
		}
		<-tick.C
	}
	return nil
}

// freePort is a TCP port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// writeConf writes slurm.conf: this host as controller and only node, at
// 127.0.0.1, on two free ports, every path in Dir.
func (c *Cluster) writeConf(socket string) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("slurmtest: %w", err)
	}
	host, _, _ = strings.Cut(host, ".")
	p1, err1 := freePort()
	p2, err2 := freePort()
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("slurmtest: %w", err)
	}
	d := c.Dir
	conf := fmt.Sprintf(`ClusterName=prismtest
SlurmctldHost=%[1]s(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=%[2]s
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%[3]s/state
SlurmdSpoolDir=%[3]s/spool
SlurmctldPidFile=%[3]s/run/slurmctld.pid
SlurmdPidFile=%[3]s/run/slurmd.pid
SlurmctldLogFile=%[3]s/log/slurmctld.log
SlurmdLogFile=%[3]s/log/slurmd.log
SlurmctldPort=%[4]d
SlurmdPort=%[5]d
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=1000 State=UNKNOWN
PartitionName=main Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, socket, d, p1, p2, runtime.NumCPU())
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		return fmt.Errorf("slurmtest: %w", err)
	}
	return nil
}

func (c *Cluster) env() []string { return append(os.Environ(), "SLURM_CONF="+c.Conf) }

// Command is a Slurm client command (sbatch, squeue…) on this cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env()
	return cmd
}

// Logs are the daemons' log files, for a failure's message.
func (c *Cluster) Logs() string {
	var b strings.Builder
	for _, name := range []string{"munged.log", "slurmctld.log", "slurmd.log"} {
		if data, err := os.ReadFile(filepath.Join(c.Dir, "log", name)); err == nil {
			fmt.Fprintf(&b, "--- %s\n%s", name, tail(data, 3000))
		}
	}
	return b.String()
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Stop ends the daemons it started, newest first, each by its PID:
// SIGTERM, then SIGKILL if it has not exited within 10 s. Calling it
// twice is harmless.
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i].Process
		select {
		case err := <-c.exits[i]:
			c.exits[i] <- err
			continue // exited already
		default:
		}
		syscall.Kill(p.Pid, syscall.SIGTERM)
		select {
		case err := <-c.exits[i]:
			c.exits[i] <- err
		case <-time.After(10 * time.Second):
			syscall.Kill(p.Pid, syscall.SIGKILL)
			c.exits[i] <- <-c.exits[i]
		}
	}
}
