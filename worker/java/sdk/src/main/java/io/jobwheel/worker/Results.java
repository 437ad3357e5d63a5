package io.jobwheel.worker;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;

/**
 * The results a POST or REDUCE task sees, in task id order: a REDUCE task the
 * ROOT's and every subtask's, a POST task every broadcast task's.
 *
 * <p>Iterating is lazy. When the server dispatched the task with
 * {@code resultsPaged} (protocol feature results.paged, docs/protocol.md
 * §11.1, which this SDK names), each iteration reads the results from the
 * server a page of 1,000 at a time, so a reduce over millions of subtasks
 * keeps only the page it is on (and what it keeps itself); otherwise they
 * came inside the dispatch. A page that cannot be read throws
 * {@link ResultsException} out of the loop, and the task fails.
 *
 * <p>It is still the {@code List<TaskResult>} PowerJob's reduce expects:
 * {@link #size()} counts them (when paged, by reading them through once,
 * keeping none), and {@link #get(int)} reads them all into a list once (a
 * list's memory, which the caller asked for). Iterate once when you can.
 */
public final class Results extends AbstractList<TaskResult> {
    /** How many results one request asks for: the protocol's most. */
    static final int PAGE = Protocol.MAX_BATCH;

    /** Reads one page: the results after task id after, at most limit. */
    interface Pager {
        Page read(long after, int limit);
    }

    static final class Page {
        final List<TaskResult> results;
        final boolean more;

        Page(List<TaskResult> results, boolean more) {
            this.results = results;
            this.more = more;
        }
    }

    private final Pager pager; // null when the results came in the dispatch
    private final long resultCount;
    private volatile List<TaskResult> list;
    private volatile int len = -1;
    private volatile int pagesRead;

    Results(List<TaskResult> listed, Pager pager, long resultCount) {
        if (pager == null) {
            this.list = listed == null ? List.of() : List.copyOf(listed);
            this.len = this.list.size();
            this.resultCount = this.len;
        } else {
            this.resultCount = resultCount;
        }
        this.pager = pager;
    }

    /** Whether the results come from the server in pages. */
    public boolean isPaged() {
        return pager != null;
    }

    /**
     * How many finished tasks the server counted when it dispatched the task
     * (for progress), without reading them.
     */
    public long getResultCount() {
        return resultCount;
    }

    /** Pages read from the server so far, over all iterations. */
    public int getPagesRead() {
        return pagesRead;
    }

    @Override
    public Iterator<TaskResult> iterator() {
        List<TaskResult> l = list;
        return l != null ? l.iterator() : new Paging();
    }

    @Override
    public Spliterator<TaskResult> spliterator() {
        // Not SIZED: knowing the size would cost a pass over every page.
        return Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED);
    }

    @Override
    public int size() {
        if (len < 0) {
            int n = 0;
            for (Iterator<TaskResult> it = iterator(); it.hasNext(); it.next()) {
                n++;
            }
            len = n;
        }
        return len;
    }

    @Override
    public boolean isEmpty() {
        return len >= 0 ? len == 0 : !iterator().hasNext();
    }

    @Override
    public TaskResult get(int index) {
        List<TaskResult> l = list;
        if (l == null) {
            synchronized (this) {
                if (list == null) {
                    List<TaskResult> all = new ArrayList<>();
                    new Paging().forEachRemaining(all::add);
                    list = List.copyOf(all);
                    len = all.size();
                }
                l = list;
            }
        }
        return l.get(index);
    }

    @Override
    public String toString() {
        List<TaskResult> l = list;
        return l != null ? l.toString() : "Results(paged, resultCount=" + resultCount + ")";
    }

    private final class Paging implements Iterator<TaskResult> {
        private List<TaskResult> page = List.of();
        private int i;
        private long after;
        private boolean more = true;
        private int n;

        @Override
        public boolean hasNext() {
            while (i >= page.size()) {
                if (!more) {
                    len = n;
                    return false;
                }
                Page p = pager.read(after, PAGE);
                pagesRead++;
                page = p.results;
                i = 0;
                more = p.more && !p.results.isEmpty();
            }
            return true;
        }

        @Override
        public TaskResult next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            TaskResult r = page.get(i++);
            after = r.getTaskId();
            n++;
            return r;
        }
    }
}
