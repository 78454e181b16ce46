// Command attack replays, against the real foiaflow processes (api, worker,
// scheduler) on a private Postgres and a private Redis, the attacks of
// issue 10 as an outsider or a broken mail server would make them:
//
//   - spoofed replies from another address at the agency's domain, with no
//     proof, with an In-Reply-To computed from a case number by the old
//     Message-ID scheme (SHA-256 of the execution key) or by the current
//     one without the secret, and through a forwarded reply address;
//   - automatic mail: out-of-office answers (one asking to clarify),
//     Auto-Submitted and X-Autoreply mail, a DSN bounce, and an agency
//     robot that keeps asking for clarification without marking itself;
//   - hostile MIME: deep nesting, thousands of parts, a 3,000-character
//     Message-ID, NUL bytes; oversized posts (declared and chunked) and
//     parallel large posts;
//   - a replayed Mailgun token with other bytes, a CR/LF subject in an
//     edit (header injection), a form post with Basic credentials, a year
//     9999 date;
//   - Postgres stopped under traffic (the API must answer 503 with
//     Retry-After within a second, and nothing accepted may be lost).
//
// It then waits for quiescence and checks the invariants from Postgres,
// the message store and the .eml sink. Counters (each finding is listed):
//
//	steered        a forged message changed a case or a proposal, was trusted, or got acted on
//	loops          an email sent because of automatic mail, or automatic sends over the daily cap
//	lost           an accepted inbound message not stored, not in the message store, or never processed
//	stuck          a case left without a way forward (run not parked or finished, accepted decision
//	               never applied, send neither sent nor escalated, unparsed message or bounce not escalated)
//	server_errors  a 5xx or a dropped connection, other than a 503 with Retry-After within a second
//	               while Postgres is down
//	max_rss_mb     the highest peak RSS (VmHWM) of the api and worker processes
//
// The shared Postgres and Redis are never touched. Last line:
//
//	attack: attempts=N steered=N loops=N lost=N stuck=N server_errors=N max_rss_mb=N
package main

import (
	"context"
	"flag"
	"time"

	"github.com/foiaflow/foiaflow/cmd/internal/fleet"
)

type options struct {
	dir                   string
	settle, wait, timeout time.Duration
	bigPosts, bigMB       int
	pgDown                time.Duration
	unavailableLimit      time.Duration
}

func main() {
	o := options{}
	flag.StringVar(&o.dir, "dir", "var/attack", "working directory for binaries, logs, message store and .eml sink")
	flag.DurationVar(&o.settle, "settle", 90*time.Second, "time limit for quiescence after each phase")
	flag.DurationVar(&o.wait, "wait", 30*time.Second, "time limit for one message or case to settle before the next attack")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "overall time limit")
	flag.IntVar(&o.bigPosts, "big-posts", 16, "parallel large posts (memory bound)")
	flag.IntVar(&o.bigMB, "big-mb", 24, "size of each large post in MB (under MESSAGE_MAX_BYTES)")
	flag.DurationVar(&o.pgDown, "pg-down", 5*time.Second, "how long Postgres stays stopped under traffic")
	flag.DurationVar(&o.unavailableLimit, "unavailable-within", time.Second, "a 503 while Postgres is down must come within this")
	flag.Parse()
	fleet.Main("attack", o.timeout, func(ctx context.Context) (bool, error) { return run(ctx, o) })
}
