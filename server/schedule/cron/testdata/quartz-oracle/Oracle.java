import java.text.ParseException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Date;
import java.util.TimeZone;

import org.quartz.CronExpression;

/**
 * Oracle prints what the real Quartz CronExpression computes, so that the Go
 * tables in server/schedule/cron can be checked against it. See README.md.
 *
 * Input (stdin), one query per line, tab separated:
 *   expr  zone  start  n
 * start is an RFC 3339 instant (2026-03-08T00:00:00-05:00) or Unix seconds.
 *
 * Output, one line per query:
 *   OK <tab> t1 <tab> t2 ... [<tab> END]   (END: getTimeAfter returned null)
 *   ERR <tab> message                     (the expression does not parse)
 *   TIMEOUT                               (Quartz did not answer in 5 s; the
 *                                          program then exits with status 3)
 * Times are RFC 3339 in the query's zone, or Unix seconds with --epoch
 * (followed by ":" and Java's UTC offset in seconds with --offsets, to spot
 * differences between Java's and Go's copies of the tz database).
 * With --summary, OK is followed by Quartz's parsed field sets instead.
 */
public class Oracle {
    private static final DateTimeFormatter RFC3339 =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");

    private static final long TIMEOUT_MS = 5000;

    public static void main(String[] args) throws Exception {
        boolean epoch = false, summary = false, offsets = false;
        for (String a : args) {
            if (a.equals("--epoch")) epoch = true;
            else if (a.equals("--offsets")) offsets = true;
            else if (a.equals("--summary")) summary = true;
            else throw new IllegalArgumentException("unknown flag " + a);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, "UTF-8")));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t", -1);
            String expr = f[0];
            String zone = f.length > 1 && !f[1].isEmpty() ? f[1] : "UTC";
            StringBuilder sb = new StringBuilder();
            CronExpression ce;
            try {
                ce = new CronExpression(expr);
            } catch (ParseException e) {
                out.println("ERR\t" + e.getMessage().replace('\t', ' ').replace('\n', ' '));
                continue;
            } catch (RuntimeException e) {
                out.println("ERR\t" + e.toString().replace('\t', ' ').replace('\n', ' '));
                continue;
            }
            TimeZone tz = TimeZone.getTimeZone(zone);
            ce.setTimeZone(tz);
            if (summary) {
                out.println("OK\t" + ce.getExpressionSummary().trim().replace("\n", "; "));
                continue;
            }
            final long startMs = parseStart(f[2]);
            final int n = Integer.parseInt(f[3]);
            final boolean ep = epoch, off = offsets;
            final CronExpression c = ce;
            // Some expressions make Quartz loop for a very long time (or
            // forever); run each query on a worker and give up after a while.
            final StringBuffer res = new StringBuffer("OK");
            Thread w = new Thread(() -> {
                Date d = new Date(startMs);
                try {
                    for (int i = 0; i < n; i++) {
                        d = c.getTimeAfter(d);
                        if (d == null) {
                            res.append("\tEND");
                            break;
                        }
                        res.append('\t');
                        if (ep) res.append(d.getTime() / 1000);
                        if (ep && off) res.append(':').append(tz.getOffset(d.getTime()) / 1000);
                        else res.append(RFC3339.format(Instant.ofEpochMilli(d.getTime()).atZone(ZoneId.of(tz.getID()))));
                    }
                } catch (RuntimeException e) {
                    res.append("\tEXC ").append(e.toString().replace('\t', ' '));
                }
            });
            w.setDaemon(true);
            w.start();
            w.join(TIMEOUT_MS);
            if (w.isAlive()) {
                // A thread cannot be stopped safely: report, and exit so that
                // the caller restarts us for the remaining queries.
                out.println("TIMEOUT");
                out.flush();
                System.exit(3);
            }
            out.println(res);
            out.flush();
        }
        out.flush();
    }

    private static long parseStart(String s) {
        if (s.matches("-?[0-9]+")) return Long.parseLong(s) * 1000L;
        if (s.matches("-?[0-9]+\\.[0-9]{3}")) return Long.parseLong(s.replace(".", ""));
        return OffsetDateTime.parse(s).toInstant().toEpochMilli();
    }
}
